/**
 * CORS through @fastify/cors: the origins configured, the override headers allowed; and
 * the answer to a preflight (the browser asking, without credentials, whether it may send
 * the real request), the same for every path, existing or not, so that preflights cannot
 * map the API: `204`, the CORS headers, no `Allow`, no body.
 */
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import fp from 'fastify-plugin';
import { OVERRIDE_HEADER_NAMES } from '../../../api/methods.js';
import { isPreflight } from './preflight.js';

export interface CorsOptions {
  /** CORS_ORIGIN: `*`, or origins separated by commas. */
  origins: string;
}

/**
 * The CORS headers go on in @fastify/cors's onRequest hook, before access control and the
 * rate limit can refuse (a browser reads a 401 or 429 only with them). The preflight is
 * answered in preParsing: after the rate limit (onRequest) has counted it, after a bad
 * override is refused, and before access control, which a preflight never passes.
 */
export const cors = fp<CorsOptions>(
  async (app, options) => {
    await app.register(fastifyCors, corsOptions(options.origins));
    app.addHook('preParsing', (request, reply, payload, done) => {
      if (!isPreflight(request)) return done(null, payload);
      reply.code(204).header('content-length', '0').send();
    });
  },
  { name: 'restock-cors', fastify: '5.x', dependencies: ['restock-problems', 'restock-method-override'] },
);

function corsOptions(origins: string): FastifyCorsOptions {
  const origin = origins === '*' ? '*' : origins.split(',').map((o) => o.trim());
  return {
    origin,
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
    // One string: the plugin joins a list again on every request.
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
    ].join(', '),
    maxAge: 600,
    strictPreflight: false,
    // Static options, so that the plugin prepares them once rather than per request (a
    // delegator's options are normalized on every call). Preflight headers go on every
    // OPTIONS, which then continues: a real preflight is answered by the hook above, alike
    // on every path, and a plain OPTIONS by its route, with its `Allow`.
    preflight: true,
    preflightContinue: true,
  };
}
