/**
 * The pairs of requests the accounts and rules scenarios compare (bench/accounts.ts), over
 * the seeded shop, and the check that each asks what it means to before it is measured.
 */
import { encodeCursor } from '../src/records/cursor.js';
import { type SeededShop, SHOPPER } from './shop-seed.js';
import type { LoadRequest } from './wrk.js';

export interface Variant extends LoadRequest {
  label: string;
}

/**
 * The page the deep-page scenario reads: page 1,000, or the deepest a smaller seed allows,
 * always with more of the shopper's orders after it, so that it is a page inside a list
 * (one whose Link leads on), as a client paging through would read it, not the list's end.
 */
export const deepPageOf = (ownOrders: number) => Math.max(2, Math.min(1000, Math.floor((ownOrders - 1) / 100)));

/** The two requests of each scenario, over `shop`, with the shopper's token and a write key. */
export function pairsOf(
  shop: SeededShop,
  token: string,
  key: string,
  deepPage: number,
): Record<string, [Variant, Variant]> {
  const as = (credential: string) => ({ Authorization: `Bearer ${credential}` });
  const get = (label: string, path: string, credential: string): Variant => ({
    label,
    method: 'GET',
    path,
    ids: 'none',
    headers: as(credential),
  });
  const order = `/order/${shop.ownIds[0]}/`;
  const firstPage = '/orders/?limit=100';
  const cursor = encodeCursor([shop.ownIds[(deepPage - 1) * 100 - 1] as number], '');
  return {
    'token-get-one': [get('token', order, token), get('key', order, key)],
    // A key is under no rule: the filter asks for the rows the rule lets the shopper see.
    'owner-page': [get('rule', firstPage, token), get('filter', `/orders/?userId=${shop.shopperId}&limit=100`, key)],
    'owner-deep-page': [
      get(`page ${deepPage}`, `${firstPage}&cursor=${cursor}`, token),
      get('page 1', firstPage, token),
    ],
  };
}

async function fetchAs(url: string, variant: Variant) {
  const response = await fetch(`${url}${variant.path}`, { headers: variant.headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${variant.path} as ${variant.label}: ${response.status} ${text}`);
  return { text, link: response.headers.get('link') ?? '' };
}

/**
 * Before measuring, that each pair asks what it means to: the rule's page and the filter's
 * hold the same records, page 1's Link names the cursor this bench builds for the next
 * page, and the deep page starts where it should, with a next page after it.
 */
export async function checkPairs(
  url: string,
  pairs: Record<string, [Variant, Variant]>,
  shop: SeededShop,
  deep: number,
) {
  const [rule, filter] = pairs['owner-page'] as [Variant, Variant];
  const [ruled, filtered] = [await fetchAs(url, rule), await fetchAs(url, filter)];
  if (ruled.text !== filtered.text) throw new Error('the rule and the filter list different records');
  const next = encodeCursor([shop.ownIds[99] as number], '');
  if (!ruled.link.includes(`cursor=${next}>`)) throw new Error(`page 1's Link is not the cursor built: ${ruled.link}`);
  const deepPage = await fetchAs(url, (pairs['owner-deep-page'] as [Variant, Variant])[0]);
  const page = JSON.parse(deepPage.text) as { id: number }[];
  if (page.length !== 100 || page[0]?.id !== shop.ownIds[(deep - 1) * 100] || !deepPage.link.includes('rel="next"')) {
    throw new Error(`page ${deep} starts at ${page[0]?.id} with ${page.length} records, Link ${deepPage.link}`);
  }
  for (const [a, b] of Object.values(pairs)) await Promise.all([fetchAs(url, a), fetchAs(url, b)]);
}

export async function signInShopper(url: string): Promise<string> {
  const response = await fetch(`${url}/users/auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(SHOPPER),
  });
  const body = (await response.json()) as { token?: string };
  if (response.status !== 200 || !body.token) throw new Error(`sign-in answered ${response.status}`);
  return body.token;
}
