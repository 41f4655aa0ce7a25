/**
 * The benchmark's scenarios and their targets. Each is one kind of request, sent over and
 * over by every connection; ids are drawn from the seeded records.
 */

export interface Scenario {
  name: string;
  title: string;
  method: string;
  /** The path, `{id}` standing for a record id. */
  path: string;
  /** How ids are drawn: at random among the seeded records, or each once in order (DELETE). */
  ids: 'random' | 'sequential' | 'none';
  body?: string;
  headers?: Record<string, string>;
  /** The smallest restock ÷ baseline ratio of req/s that meets the target. */
  target: number;
  /** The smallest restock ÷ Express app ratio of req/s that meets the target (`--peers`). */
  expressTarget: number;
  /**
   * The same request in json-server's terms (plural paths without a trailing slash, its own
   * query syntax, PATCH for a merge), or none where it has no way to ask it.
   */
  jsonServer?: Pick<Scenario, 'method' | 'path' | 'headers'>;
}

const json = { 'Content-Type': 'application/json' };

const NEW_USER = JSON.stringify({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  age: 36,
  address: { street: '12 St James Square', city: 'London', zip: 'SW1Y' },
  tags: ['customer', 'gold'],
});

const PRODUCT_CHANGE = JSON.stringify({ price: 17.5, stock: 3, sale: { until: '2030-01-01', percent: 10 } });

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'get-one',
    title: 'GET one user',
    method: 'GET',
    path: '/user/{id}/',
    ids: 'random',
    target: 0.85,
    expressTarget: 1,
    jsonServer: { method: 'GET', path: '/users/{id}' },
  },
  {
    name: 'get-page',
    title: 'GET a page of 100 products',
    method: 'GET',
    path: '/products/',
    ids: 'none',
    target: 1.5,
    expressTarget: 1.2,
    jsonServer: { method: 'GET', path: '/products?_limit=100' },
  },
  {
    name: 'get-filtered',
    title: 'GET a page filtered by price',
    method: 'GET',
    // About a tenth of the products are priced from 10 to 20; the page is the cheapest 100.
    path: '/products/?price[gte]=10&price[lte]=20&sort=price&limit=100',
    ids: 'none',
    target: 1,
    expressTarget: 1,
    jsonServer: { method: 'GET', path: '/products?price_gte=10&price_lte=20&_sort=price&_limit=100' },
  },
  {
    name: 'post',
    title: 'POST a user',
    method: 'POST',
    path: '/user/',
    ids: 'none',
    body: NEW_USER,
    headers: json,
    target: 3,
    expressTarget: 0.95,
    jsonServer: { method: 'POST', path: '/users', headers: json },
  },
  {
    name: 'put',
    title: 'PUT (merge) a product',
    method: 'PUT',
    path: '/product/{id}/',
    ids: 'random',
    body: PRODUCT_CHANGE,
    headers: json,
    target: 3,
    expressTarget: 0.95,
    // json-server's PUT replaces the record; PATCH is its merge (of the top-level fields).
    jsonServer: { method: 'PATCH', path: '/products/{id}', headers: json },
  },
  {
    name: 'delete',
    title: 'DELETE a product',
    method: 'DELETE',
    path: '/product/{id}/',
    ids: 'sequential',
    target: 3,
    expressTarget: 0.95,
    jsonServer: { method: 'DELETE', path: '/products/{id}' },
  },
  {
    name: 'put-tunnelled',
    title: 'PUT tunnelled in a POST',
    method: 'POST',
    path: '/product/{id}/',
    ids: 'random',
    body: PRODUCT_CHANGE,
    headers: { ...json, 'HTTP-X-HTTP-METHOD': 'PUT' },
    target: 3,
    expressTarget: 0.95,
    // json-server has no method override: it answers this POST with 404, so it is not run there.
  },
];

/**
 * The scenario as `target` is asked it: json-server in its own terms (undefined where it
 * cannot be), every other target (the Express app included) as restock is.
 */
export function requestFor(scenario: Scenario, target: string): Scenario | undefined {
  if (target !== 'json-server') return scenario;
  return scenario.jsonServer && { ...scenario, headers: undefined, ...scenario.jsonServer };
}

/** A page filtered through an index may cost at most this many times the CPU of a plain page. */
export const FILTERED_PAGE_CPU_TARGET = 1.2;

/** The tunnelled PUT must reach this share of the direct PUT's req/s (within 5%). */
export const TUNNEL_TARGET = 0.95;

/** Peak resident memory the server may reach under the large-collection run. */
export const PEAK_RSS_TARGET_MB = 150;

/**
 * The accounts and rules scenarios (bench/accounts.ts), over the example shop. Each but the
 * sign-ins compares two requests to one restock, measured back to back: the ratio is the
 * first's req/s over the second's (and the second's CPU time per request over the first's),
 * and meets the target at or above it.
 */
export interface AccountScenario {
  name: string;
  title: string;
  /** The stores it runs on: PostgreSQL where the rest of the bench measures it too (list pages). */
  stores: readonly ('sqlite' | 'postgres')[];
  target?: number;
}

export const ACCOUNT_SCENARIOS: readonly AccountScenario[] = [
  { name: 'token-get-one', title: 'GET one order: token ÷ key', stores: ['sqlite'], target: 0.9 },
  { name: 'owner-page', title: 'page of 100: rule ÷ filter', stores: ['sqlite', 'postgres'], target: 0.9 },
  { name: 'owner-deep-page', title: 'deep page ÷ page 1, rule', stores: ['sqlite', 'postgres'], target: 0.9 },
  { name: 'sign-in', title: 'sign-ins per second per core', stores: ['sqlite'] },
];

/** The cost of a password hash as PASSWORD_HASH_COST gives it: the default, then a cheaper one to compare. */
export const SIGN_IN_COSTS = ['15,8,3', '14,8,1'] as const;

/**
 * The batch scenarios (bench/batches.ts), over the example shop on each store: restock
 * against itself, as the accounts scenarios are. `batch-creates` compares records per
 * second of a batch of creates with the same records sent one per request, measured back to
 * back (the ratio meets the target at or above it); `order-batch` is a figure, batches per
 * second, with no target.
 */
export interface BatchScenario {
  name: string;
  title: string;
  target?: number;
}

/** Creates per batch in `batch-creates`, and records per array in its bulk create beside it. */
export const BATCH_CREATES = 10;

export const BATCH_SCENARIOS: readonly BatchScenario[] = [
  { name: 'batch-creates', title: `records/s: batch of ${BATCH_CREATES} ÷ one per request`, target: 5 },
  { name: 'order-batch', title: 'order and stock batches/s' },
];
