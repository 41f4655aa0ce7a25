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
import { hostname } from 'node:os';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { wireMethod } from '../method-override/index.js';
import { batchedDestination } from './log-destination.js';

/** The levels at which info lines are written. */
const WRITES_INFO = new Set(['info', 'debug', 'trace']);

/** Where log lines go: stdout, batched (the default), another stream, or nowhere (`false`). */
export type LogStream = { write(line: string): void } | false;

/**
 * Writes a completed request's line itself, as the text pino would write for it: pino
 * serializes a line's objects with its generic machinery, about 8 µs of a read's CPU
 * (bench/README.md, "Per-request cost"), where this line always has the same fields and
 * needs only its strings escaped. Errors, rarer and richer, still go through pino.
 */
export class AccessLog extends LogController {
  readonly #prefix: string;

  constructor(private readonly destination: { write(line: string): void }) {
    super();
    this.#prefix = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ req: request, res: reply, responseTime: reply.elapsedTime, err: error }, 'request errored');
      return;
    }
    // The request's logger has its route's level (`logLevel: 'warn'` keeps the probes out).
    if (!WRITES_INFO.has(reply.log.level)) return;
    const { method, url, ip, raw } = request;
    this.destination.write(
      `{"level":30,"time":${Date.now()}${this.#prefix},"reqId":${JSON.stringify(request.id)},"req":{"method":` +
        `${JSON.stringify(method)},"wireMethod":${JSON.stringify(wireMethod(raw))},"url":${JSON.stringify(url)},` +
        `"remoteAddress":${JSON.stringify(ip)}},"res":{"statusCode":${reply.statusCode}},"responseTime":` +
        `${reply.elapsedTime},"msg":"request completed"}\n`,
    );
  }
}

/** The construction options of the app's logging: JSON lines at `level`, and the access log. */
export function accessLogOptions(
  level: string,
  stream: LogStream | undefined,
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (stream === false) return { logger: false, logController: new AccessLog({ write() {} }) };
  const destination = stream ?? batchedDestination();
  return {
    logger: { level, serializers: { req: serializeRequest }, stream: destination },
    logController: new AccessLog(destination),
  };
}

/** What the access log records of a request: both the wire and the effective method. */
function serializeRequest(request: { method: string; url: string; raw?: IncomingMessage; ip?: string }) {
  return {
    method: request.method,
    wireMethod: request.raw ? wireMethod(request.raw) : request.method,
    url: request.url,
    remoteAddress: request.ip,
  };
}
