/**
 * Request ids: the caller's `X-Request-Id` when it is a sane token, else a new one. Every
 * log line of the request carries it, and every response says it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';

/** Fastify's `genReqId` (a construction option): the id exists before the first hook and log line. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/**
 * Says the id on every response, from the first onRequest hook: every plugin whose hook can
 * refuse a request there (load shedding, the rate limit) depends on this one.
 */
export const requestId = fp(
  async (app) => {
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
  },
  { name: 'restock-request-id', fastify: '5.x' },
);
