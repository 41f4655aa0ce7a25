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
  { name: 'get-one', title: 'GET one user', method: 'GET', path: '/user/{id}/', ids: 'random', target: 0.85 },
  { name: 'get-page', title: 'GET a page of 100 products', method: 'GET', path: '/products/', ids: 'none', target: 1 },
  {
    name: 'post',
    title: 'POST a user',
    method: 'POST',
    path: '/user/',
    ids: 'none',
    body: NEW_USER,
    headers: json,
    target: 3,
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
  },
  { name: 'delete', title: 'DELETE a product', method: 'DELETE', path: '/product/{id}/', ids: 'sequential', target: 3 },
  {
    name: 'put-tunnelled',
    title: 'PUT tunnelled in a POST',
    method: 'POST',
    path: '/product/{id}/',
    ids: 'random',
    body: PRODUCT_CHANGE,
    headers: { ...json, 'HTTP-X-HTTP-METHOD': 'PUT' },
    target: 3,
  },
];

/** The tunnelled PUT must reach this share of the direct PUT's req/s (within 5%). */
export const TUNNEL_TARGET = 0.95;

/** Peak resident memory the server may reach under the large-collection run. */
export const PEAK_RSS_TARGET_MB = 150;
