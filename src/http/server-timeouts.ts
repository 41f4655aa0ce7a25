/**
 * The server timeouts that keep slow clients from holding connections; what Node then
 * refuses on the socket is answered by the problems plugin (plugins/problems/client-errors.ts).
 */
import type { ServerOptions } from 'node:http';
import type { FastifyServerOptions } from 'fastify';

export interface ServerTimeouts {
  /** Milliseconds from connection (or the previous response) to the end of the request headers. */
  headersTimeout: number;
  /** Milliseconds to receive the whole request, body included. */
  requestTimeout: number;
  /** Milliseconds an idle keep-alive connection is kept. */
  keepAliveTimeout: number;
}

/**
 * The Fastify options that bound how long a client may take. Node enforces the headers and
 * request timeouts from a periodic sweep (30 s by default), so the sweep runs at least
 * once a second, or they would only be approximate.
 */
export function serverTimeouts(
  timeouts: ServerTimeouts,
): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout'> & { http: ServerOptions } {
  return {
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    http: {
      headersTimeout: timeouts.headersTimeout,
      requestTimeout: timeouts.requestTimeout,
      connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeout),
    },
  };
}
