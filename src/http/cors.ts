/**
 * CORS through @fastify/cors, with its options fixed at start.
 *
 * The plugin answers every OPTIONS request as a preflight, in its onRequest hook, before
 * any route. (Choosing per request with its `delegator` rebuilt and merged the whole option
 * set on every request of every kind: a fifth of the CPU time of a read, see
 * bench/README.md.) So a small hook runs first and keeps what OPTIONS means without CORS:
 * on a known path it adds the path's `Allow` header to the plugin's 204, and an OPTIONS on
 * an unknown path that is not a preflight is a 404, like any other method there.
 */
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { OVERRIDE_HEADER_NAMES } from './method-override.js';

export async function registerCors(app: FastifyInstance, config: Pick<Config, 'corsOrigin'>): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS') return done();
    const allow = request.routeOptions.config.allow;
    if (allow) reply.header('allow', allow);
    else if (!isPreflight(request)) return reply.callNotFound();
    done();
  });
  await app.register(cors, {
    origin: config.corsOrigin === '*' ? '*' : config.corsOrigin.split(',').map((o) => o.trim()),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'Content-Type',
      'Authorization',
      'If-Match',
      'If-None-Match',
      'Idempotency-Key',
      'Prefer',
      'X-Request-Id',
      ...OVERRIDE_HEADER_NAMES,
    ],
    exposedHeaders: [
      'ETag',
      'Link',
      'Location',
      'X-Total-Count',
      'X-Request-Id',
      'Retry-After',
      'Allow',
      'WWW-Authenticate',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Idempotent-Replayed',
      'Preference-Applied',
    ],
    maxAge: 600,
    preflight: true,
    strictPreflight: false,
  });
}

function isPreflight(request: FastifyRequest): boolean {
  return request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
}
