/**
 * Abuse limits: a request budget per API key (per address without one) with
 * @fastify/rate-limit, kept in process or shared by every instance through Redis; load
 * shedding with @fastify/under-pressure when the event loop is saturated; and the server
 * timeouts that keep slow clients from holding connections. Every refusal is a problem
 * document, down to the ones Node answers on the socket before a request exists.
 */
import { type ServerOptions, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import { CONFIG_DEFAULTS } from '../../../config/index.js';
import { HttpProblem, PROBLEM_TYPE, problemDocument } from '../../problem.js';
import { credentialOf } from '../access-control.js';
import { isPreflight } from '../cors/preflight.js';

export interface RateLimitOptions {
  /** Requests per window per key (or address); 0 turns the limit off. */
  max: number;
  windowMs: number;
  /** A Redis shared by every instance, or '' to count in this process. */
  redisUrl: string;
  /** Routes never limited: the probes, which must tell the truth to load balancers. */
  exempt: ReadonlySet<string>;
}

export const PROBE_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/** Redis was unreachable at start: the process stops with this one line. */
export class RedisUnavailableError extends Error {}

/**
 * Counts every request against the budget of its API key, or of its address without a
 * valid one (so guessing keys is limited too). Registered as one global onRequest hook,
 * after the request is identified: unknown paths and 405s count as well.
 */
export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  if (options.max === 0) return;
  const redis = options.redisUrl === '' ? undefined : await connectRedis(app, options.redisUrl);
  await app.register(rateLimit, {
    global: false,
    max: options.max,
    timeWindow: options.windowMs,
    // RateLimit-Limit, -Remaining and -Reset (the IETF draft) rather than X-RateLimit-*.
    enableDraftSpec: true,
    ...(redis ? { redis, nameSpace: 'restock-rate-limit:' } : {}),
    // A Redis outage must not take the API down: requests pass unlimited (and it is logged).
    skipOnError: true,
    keyGenerator: rateLimitKey,
    // A preflight to a probe is no probe: every preflight is counted, alike on every path.
    allowList: (request) => !isPreflight(request) && options.exempt.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) =>
      new HttpProblem('too-many-requests', `Too many requests; retry in ${context.after}.`),
  });
  app.addHook('onRequest', app.rateLimit());
}

/** Whose budget a request spends: its API key's, else its address's (IPv6 by /64, as the plugin does). */
export function rateLimitKey(request: FastifyRequest): string {
  const key = credentialOf(request);
  if (key) return `key:${key.name}`;
  // An IPv4 address is its own key; only IPv6 needs the plugin's normalizing (a costly regex).
  const { ip } = request;
  return `ip:${ip.includes(':') ? normalizeIP(ip) : ip}`;
}

async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  // No offline queue and one try per command: while Redis is away a request must not wait for it.
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
  });
  let healthy = true;
  redis.on('error', (error: Error) => {
    if (!healthy) return;
    healthy = false;
    app.log.warn({ err: error }, 'Redis does not answer: requests are served without rate limits until it is back');
  });
  redis.on('ready', () => {
    if (!healthy) app.log.info('Redis answers again: rate limits apply');
    healthy = true;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    const where = new URL(url);
    throw new RedisUnavailableError(
      `cannot reach Redis at ${where.hostname}:${where.port || 6379} (REDIS_URL): ${(error as Error).message}`,
    );
  }
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  return redis;
}

export interface LoadSheddingOptions {
  /** Mean event loop delay, in ms, above which requests are refused with 503; 0 turns it off. */
  maxEventLoopDelayMs: number;
  /** How often the delay is measured (tests shorten it). */
  sampleIntervalMs: number;
  /** Routes always served: the liveness probe, so that a busy process is not taken for a dead one. */
  exempt: ReadonlySet<string>;
}

export const DEFAULT_LOAD_SHEDDING: LoadSheddingOptions = {
  maxEventLoopDelayMs: CONFIG_DEFAULTS.maxEventLoopDelay,
  sampleIntervalMs: 1000,
  exempt: new Set(['/healthz']),
};

/** Answers 503 (with Retry-After) while the event loop is saturated, instead of queueing more work. */
export async function registerLoadShedding(app: FastifyInstance, options: LoadSheddingOptions): Promise<void> {
  if (options.maxEventLoopDelayMs === 0) return;
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    sampleInterval: options.sampleIntervalMs,
    async pressureHandler(request) {
      if (options.exempt.has(request.routeOptions.url ?? '')) return;
      throw new HttpProblem('overloaded', 'The server is too busy to take this request; retry in a few seconds.', {
        headers: { 'retry-after': '5' },
      });
    },
  });
}

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
export function serverLimits(
  timeouts: ServerTimeouts,
): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout' | 'clientErrorHandler'> & { http: ServerOptions } {
  return {
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    http: {
      headersTimeout: timeouts.headersTimeout,
      requestTimeout: timeouts.requestTimeout,
      connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeout),
    },
    clientErrorHandler: answerClientError,
  };
}

/**
 * Answers what Node refuses before a request exists (a timeout, oversized headers, bytes
 * that are not HTTP) with a problem document, as Fastify's own handler does with plain
 * JSON, then closes the connection. There is no request path, so no `instance`.
 */
function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new HttpProblem('request-timeout', 'The request did not arrive in full in the time this server allows.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new HttpProblem('headers-too-large', 'The request headers are larger than this server accepts.')
        : new HttpProblem('bad-request', 'The request is not valid HTTP/1.1.');
  this.log.debug({ err: error }, 'client error');
  if (socket.writable) {
    const body = problemDocument(problem, undefined);
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: ${PROBLEM_TYPE}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
