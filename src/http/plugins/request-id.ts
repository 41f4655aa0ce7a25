/**
 * Request ids: the caller's `X-Request-Id` when it is a sane token, else a new one. Every
 * log line of the request carries it, and every response says it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';

/**
 * The ids this process makes: a random UUID's first 24 characters, drawn once, then a count
 * in the last 12 hex digits. Still the shape of a UUID and unique across processes (74
 * random bits per process) and within one (the count); a `randomUUID()` per request, which
 * formats 16 random bytes each time, was the most of what a request id cost (bench/README.md).
 * An id is a name for the logs, not a secret: that the next one can be guessed gives nothing.
 */
const PREFIX = randomUUID().slice(0, 24);
let made = 0;

/** Fastify's `genReqId` (a construction option): the id exists before the first hook and log line. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given)) return given;
  made++;
  return PREFIX + made.toString(16).padStart(12, '0');
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
