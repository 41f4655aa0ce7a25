/**
 * The request budget: requests per window per API key, per account, and per address,
 * through @fastify/rate-limit, counted in this process or shared by every instance through
 * Redis. A request spends the budget of each of its holders (src/records/in-flight-gate.ts):
 * an API key's alone, an account's and its address's both (accounts cost nothing to open,
 * so an address cannot multiply its budget with them), an address's without a credential.
 * A route leaves the budget with `config: { rateLimit: false }`: the probes, which must tell
 * load balancers the truth.
 */
import rateLimitPlugin, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
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

/** The budget one call of the limiter spends, set on a stand-in for the request. */
const BUDGET = Symbol('restock.budget');
type Charged = FastifyRequest & { [BUDGET]: string };

/**
 * Counts every request against its holders' budgets, in one onRequest hook for the whole
 * app: unknown paths and 405s count as well. It follows access control's onRequest hook,
 * which identifies the caller, and load shedding's, so that a request refused for overload
 * costs its caller nothing.
 */
export const rateLimit = fp<RateLimitOptions>(
  async (app, options) => {
    if (options.max === 0) return;
    const redis = options.redisUrl === '' ? undefined : await connectRedis(app, options.redisUrl);
    await app.register(rateLimitPlugin, {
      global: false,
      max: options.max,
      timeWindow: options.windowMs,
      ...(redis ? { redis, nameSpace: 'restock-rate-limit:' } : {}),
      // A Redis outage must not take the API down: requests pass unlimited (and it is logged).
      skipOnError: true,
      keyGenerator: (request) => (request as Charged)[BUDGET],
      // A preflight to a probe is no probe: every preflight is counted, alike on every path.
      allowList: (request) => !isPreflight(request) && request.routeOptions.config.rateLimit === false,
    });
    // The plugin's own hook spends one budget a request; its manual limiter spends any.
    const charge = app.createRateLimit();
    app.addHook('onRequest', async (request, reply) => {
      const budgets = budgetsOf(holderOf(request));
      // A stand-in per budget (the request itself beneath), named for the key generator.
      const spent = await Promise.all(
        budgets.map((budget) => charge(Object.create(request, { [BUDGET]: { value: budget } }))),
      );
      limit(reply, spent);
    });
  },
  {
    name: 'restock-rate-limit',
    fastify: '5.x',
    dependencies: ['restock-request-id', 'restock-load-shedding', 'restock-cors', 'restock-access-control'],
  },
);

type Spent = Awaited<ReturnType<ReturnType<FastifyInstance['createRateLimit']>>>;
type Counted = Extract<Spent, { isAllowed: false }>;

/**
 * The RateLimit-Limit, -Remaining and -Reset headers (the IETF draft) of the budget with
 * the least left, and a 429 with Retry-After once any is spent (the one that frees last).
 */
function limit(reply: FastifyReply, spent: readonly Spent[]): void {
  const counted = spent.filter((one): one is Counted => !one.isAllowed);
  const over = counted.filter((one) => one.isExceeded);
  const [tightest] = (over.length > 0 ? over : counted).sort(
    (a, b) => a.remaining - b.remaining || b.ttlInSeconds - a.ttlInSeconds,
  );
  if (!tightest) return;
  reply.header('ratelimit-limit', tightest.max);
  reply.header('ratelimit-remaining', tightest.remaining);
  reply.header('ratelimit-reset', tightest.ttlInSeconds);
  if (over.length === 0) return;
  reply.header('retry-after', tightest.ttlInSeconds);
  throw new HttpProblem('too-many-requests', `Too many requests; retry in ${tightest.ttlInSeconds} s.`);
}

/** Whose budgets a request spends: each of its holders once (an address without a credential is both). */
function budgetsOf({ client, address }: Holder): string[] {
  return address === undefined || address === client ? [client] : [client, address];
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
