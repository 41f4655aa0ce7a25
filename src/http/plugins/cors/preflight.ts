import type { FastifyRequest } from 'fastify';

/** Whether a request is a CORS preflight: OPTIONS with an Origin and the method it asks about. */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  );
}
