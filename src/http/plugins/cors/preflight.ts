/**
 * CORS preflights: the browser asking, without credentials (it never sends them on a
 * preflight), whether it may send the real request. @fastify/cors adds the CORS headers;
 * this answers the preflight itself, the same way for every path, existing or not, so that
 * preflights cannot map the API: `204`, the CORS headers, no `Allow`, no body.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Whether a request is a CORS preflight: OPTIONS with an Origin and the method it asks about. */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  );
}

/**
 * Answers preflights in an onRequest hook, before any route or access control: registered
 * after the rate limit, so that a preflight is counted like any other request. A plain
 * OPTIONS (no Origin) goes on to its route, which answers with its `Allow`.
 */
export function registerPreflightAnswer(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!isPreflight(request)) return done();
    reply.code(204).header('content-length', '0').send();
  });
}
