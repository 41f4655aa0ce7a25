/**
 * The access log: one line per request, written when it is answered, through Fastify's
 * own extension point for its request logging (`LogController`). Fastify's default writes
 * two lines, one on arrival and one on completion; the second says everything the first
 * does once it carries the request, and a line costs as much as the rest of a simple read
 * (bench/README.md).
 *
 * No registered plugin: Fastify writes these lines itself, from construction options
 * ({@link accessLogOptions}), with no hook per request; a plugin could only add one.
 */
import type { IncomingMessage } from 'node:http';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { wireMethod } from '../method-override/index.js';
import { batchedDestination } from './log-destination.js';

export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** Where log lines go: stdout, batched (the default), another stream, or nowhere (`false`). */
export type LogStream = { write(line: string): void } | false;

/** The construction options of the app's logging: JSON lines at `level`, and the access log. */
export function accessLogOptions(
  level: string,
  stream: LogStream | undefined,
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  return {
    logger:
      stream === false
        ? false
        : { level, serializers: { req: serializeRequest }, stream: stream ?? batchedDestination() },
    logController: new AccessLog(),
  };
}

/**
 * A URL without the value of an `access_token` (a change feed's key, see route-policy.ts),
 * however its name is spelled: the query parser decodes `access%5Ftoken` to the same name.
 */
function redacted(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url.slice(start + 1);
  if (!/%|access_token/i.test(query)) return url;
  const pairs = query.split('&').map((pair) => {
    const name = pair.split('=', 1)[0] as string;
    return isTokenName(name) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, start + 1)}${pairs.join('&')}`;
}

function isTokenName(name: string): boolean {
  try {
    return decodeURIComponent(name.replaceAll('+', ' ')).toLowerCase() === 'access_token';
  } catch {
    return false;
  }
}

/** What the access log records of a request: both the wire and the effective method. */
function serializeRequest(request: { method: string; url: string; raw?: IncomingMessage; ip?: string }) {
  return {
    method: request.method,
    wireMethod: request.raw ? wireMethod(request.raw) : request.method,
    url: redacted(request.url),
    remoteAddress: request.ip,
  };
}
