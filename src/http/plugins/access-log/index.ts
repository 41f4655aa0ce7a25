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
import { RequestLog, requestLogFactory } from './request-log.js';

export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const log = reply.log;
    const responseTime = reply.elapsedTime;
    if (error) log.error({ req: request, res: reply, responseTime, err: error }, 'request errored');
    else if (log instanceof RequestLog && log.parentWrites) {
      // The child's binding first, as the child writes it (the default `requestIdLogLabel`).
      log.parent.info({ reqId: request.id, req: request, res: reply, responseTime }, 'request completed');
    } else log.info({ req: request, res: reply, responseTime }, 'request completed');
  }
}

/** Where log lines go: stdout, batched (the default), another stream, or nowhere (`false`). */
export type LogStream = { write(line: string): void } | false;

/** The construction options of the app's logging: JSON lines at `level`, and the access log. */
export function accessLogOptions(
  level: string,
  stream: LogStream | undefined,
): Pick<FastifyServerOptions, 'logger' | 'logController' | 'childLoggerFactory'> {
  return {
    logger:
      stream === false
        ? false
        : { level, serializers: { req: serializeRequest }, stream: stream ?? batchedDestination() },
    logController: new AccessLog(),
    childLoggerFactory: requestLogFactory,
  };
}

/**
 * A URL without the values of its secrets: an `access_token` (a change feed's key, see
 * route-policy.ts), a `token` (a download's file token), and the `code` and `state` a
 * provider's sign-in comes back with (each would let whoever reads the log finish that
 * sign-in), however their names are spelled:
 * the query parser decodes `access%5Ftoken` to the same name. A record filter on a field
 * named `code` or `state` loses its value in the log too, which costs less than a guess.
 */
function redacted(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url.slice(start + 1);
  if (!/%|token|code|state/i.test(query)) return url;
  const pairs = query.split('&').map((pair) => {
    const name = pair.split('=', 1)[0] as string;
    return isTokenName(name) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, start + 1)}${pairs.join('&')}`;
}

const SECRET_NAMES: ReadonlySet<string> = new Set(['access_token', 'token', 'code', 'state']);

function isTokenName(name: string): boolean {
  try {
    return SECRET_NAMES.has(decodeURIComponent(name.replaceAll('+', ' ')).toLowerCase());
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
