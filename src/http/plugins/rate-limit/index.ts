/**
 * The request budget: requests per window per API key, per account, and per address,
 * through @fastify/rate-limit, counted in this process or shared by every instance through
 * Redis. A request spends the budget of each of its holders (src/records/in-flight-gate.ts):
 * an API key's alone, an account's and its address's both (accounts cost nothing to open,
 * so an address cannot multiply its budget with them), an address's without a credential.
 * A route leaves the budget with `config: { rateLimit: false }`: the probes, which must tell
 * load balancers the truth.
 */
import { createRequire } from 'node:module';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { Holder } from '../../../records/in-flight-gate.js';
import { HttpProblem } from '../../problem.js';
import { callerName, credentialOf } from '../access-control/access-control.js';
import { isPreflight } from '../cors/preflight.js';
import { connectRedis } from './redis.js';

export { RedisUnavailableError } from './redis.js';

export interface RateLimitOptions {
  /** Requests per window per key, account and address; 0 turns the limit off. */
  max: number;
  windowMs: number;
  /** A Redis shared by every instance, or '' to count in this process. */
  redisUrl: string;
}

/** A budget's count in its window, as @fastify/rate-limit's stores give it. */
interface Count {
  current: number;
  ttl: number;
}

/**
 * @fastify/rate-limit's stores, through their own callback API: the in-process one (a
 * fixed window per key in an LRU of 5,000 keys) or the Redis one (a Lua script per count).
 */
interface BudgetStore {
  incr(key: string, done: (error: Error | null, count: Count | null) => void, windowMs: number, max: number): void;
}
type StoreClass<A extends unknown[]> = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  ...rest: A
) => BudgetStore;
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreClass<[cache: number]>;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreClass<[redis: Redis, nameSpace: string]>;

/**
 * Counts every request against its holders' budgets, in one onRequest hook for the whole
 * app: unknown paths and 405s count as well. It follows access control's onRequest hook,
 * which identifies the caller, and load shedding's, so that a request refused for overload
 * costs its caller nothing.
 *
 * The plugin's stores are called directly, in a callback hook: the plugin's own limiter
 * (`createRateLimit`) runs a key generator, an allow list and the store each behind an
 * await, and took a stand-in object per budget, about a fifth of a read's services in a
 * profile (bench/README.md, "Where the microseconds of GET one go"). What a request spends
 * and the headers it gets are the same.
 */
export const rateLimit = fp<RateLimitOptions>(
  async (app, options) => {
    const { max, windowMs } = options;
    if (max === 0) return;
    const redis = options.redisUrl === '' ? undefined : await connectRedis(app, options.redisUrl);
    const store = redis
      ? new RedisStore(false, false, redis, 'restock-rate-limit:')
      : new LocalStore(false, false, 5000);
    app.addHook('onRequest', (request, reply, done) => {
      // A preflight to a probe is no probe: every preflight is counted, alike on every path.
      if (request.routeOptions.config.rateLimit === false && !isPreflight(request)) return done();
      const { client, address } = holderOf(request);
      if (address === undefined || address === client) {
        store.incr(client, (error, count) => limit(reply, [spentOf(max, error ? null : count)], done), windowMs, max);
        return;
      }
      // An account's budget and its address's: the reply waits for both counts.
      const spent: Spent[] = [];
      const counted = (error: Error | null, count: Count | null) => {
        spent.push(spentOf(max, error ? null : count));
        if (spent.length === 2) limit(reply, spent, done);
      };
      store.incr(client, counted, windowMs, max);
      store.incr(address, counted, windowMs, max);
    });
  },
  {
    name: 'restock-rate-limit',
    fastify: '5.x',
    dependencies: ['restock-request-id', 'restock-load-shedding', 'restock-cors', 'restock-access-control'],
  },
);

/** What one budget has left. */
interface Spent {
  max: number;
  remaining: number;
  ttlInSeconds: number;
  isExceeded: boolean;
}

/** A budget's count as the plugin's limiter reads it; none (Redis away): nothing spent, the request passes. */
function spentOf(max: number, count: Count | null): Spent {
  const current = count?.current ?? 0;
  return {
    max,
    remaining: Math.max(0, max - current),
    ttlInSeconds: Math.ceil((count?.ttl ?? 0) / 1000),
    isExceeded: current > max,
  };
}

/**
 * The RateLimit-Limit, -Remaining and -Reset headers (the IETF draft) of the budget with
 * the least left, and a 429 with Retry-After once any is spent (the one that frees last).
 */
function limit(reply: FastifyReply, spent: Spent[], done: HookHandlerDoneFunction): void {
  const over = spent.filter((one) => one.isExceeded);
  const [tightest] = (over.length > 0 ? over : spent).sort(
    (a, b) => a.remaining - b.remaining || b.ttlInSeconds - a.ttlInSeconds,
  ) as [Spent];
  reply.header('ratelimit-limit', tightest.max);
  reply.header('ratelimit-remaining', tightest.remaining);
  reply.header('ratelimit-reset', tightest.ttlInSeconds);
  if (over.length === 0) {
    done();
    return;
  }
  reply.header('retry-after', tightest.ttlInSeconds);
  done(new HttpProblem('too-many-requests', `Too many requests; retry in ${tightest.ttlInSeconds} s.`));
}

/**
 * Who holds what a request takes (budgets, costly queries, feeds, password hashes): its API
 * key alone; or its account, else its address as the client, and its address.
 */
export function holderOf(request: FastifyRequest): Holder {
  const key = credentialOf(request);
  if (key) return { client: `key:${key.name}` };
  const address = addressKey(request);
  return { client: callerName(request) ?? address, address };
}

/** The client's address as a key (IPv6 by /64, as the plugin does). */
export function addressKey(request: FastifyRequest): string {
  // A client over a Unix socket has no address: all such share one key.
  const ip = request.ip as string | undefined;
  if (!ip) return 'local';
  // An IPv4 address is its own key; only IPv6 needs the plugin's normalizing (a costly regex).
  return `ip:${ip.includes(':') ? normalizeIP(ip) : ip}`;
}
