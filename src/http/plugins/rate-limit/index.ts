/**
 * The request budget: requests per window per API key (per address without a valid one),
 * through @fastify/rate-limit, counted in this process or shared by every instance through
 * Redis. A route leaves the budget with `config: { rateLimit: false }`: the probes, which
 * must tell load balancers the truth.
 */
import rateLimitPlugin, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HttpProblem } from '../../problem.js';
import { callerName } from '../access-control/index.js';
import { isPreflight } from '../cors/preflight.js';
import { connectRedis } from './redis.js';

export { RedisUnavailableError } from './redis.js';

export interface RateLimitOptions {
  /** Requests per window per key (or address); 0 turns the limit off. */
  max: number;
  windowMs: number;
  /** A Redis shared by every instance, or '' to count in this process. */
  redisUrl: string;
}

/**
 * Counts every request against the budget of its API key, or of its address without a
 * valid one (so guessing keys is limited too), in one onRequest hook for the whole app:
 * unknown paths and 405s count as well. It follows access control's onRequest hook, which
 * identifies the caller, and load shedding's, so that a request refused for overload costs
 * its caller nothing.
 */
export const rateLimit = fp<RateLimitOptions>(
  async (app, options) => {
    if (options.max === 0) return;
    const redis = options.redisUrl === '' ? undefined : await connectRedis(app, options.redisUrl);
    await app.register(rateLimitPlugin, {
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
      allowList: (request) => !isPreflight(request) && request.routeOptions.config.rateLimit === false,
      errorResponseBuilder: (_request, context) =>
        new HttpProblem('too-many-requests', `Too many requests; retry in ${context.after}.`),
    });
    app.addHook('onRequest', app.rateLimit());
  },
  {
    name: 'restock-rate-limit',
    fastify: '5.x',
    dependencies: ['restock-request-id', 'restock-load-shedding', 'restock-cors', 'restock-access-control'],
  },
);

/** Whose budget a request spends: its API key's or account's, else its address's. */
export function rateLimitKey(request: FastifyRequest): string {
  return callerName(request) ?? addressKey(request);
}

/** The client's address as a key (IPv6 by /64, as the plugin does). */
export function addressKey(request: FastifyRequest): string {
  // A client over a Unix socket has no address: all such share one key.
  const ip = request.ip as string | undefined;
  if (!ip) return 'local';
  // An IPv4 address is its own key; only IPv6 needs the plugin's normalizing (a costly regex).
  return `ip:${ip.includes(':') ? normalizeIP(ip) : ip}`;
}
