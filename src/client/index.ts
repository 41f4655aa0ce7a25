/**
 * restock's client, for Node.js and browsers: `fetch` and nothing else. Import it as
 * `restock/client`.
 *
 * ```ts
 * const shop = createClient<{ users: { name: string; email: string } }>({ baseUrl: 'http://127.0.0.1:3000' });
 * const ada = await shop.collection('users').create({ name: 'Ada', email: 'ada@example.com' });
 * for await (const user of shop.collection('users').list({ filter: { name: { startsWith: 'A' } } })) …
 * for await (const change of shop.collection('users').subscribe()) …
 * ```
 *
 * This folder imports nothing from the rest of src/: it runs where restock does not.
 */
import { CollectionClient } from './collection.js';
import { type ClientOptions, Transport } from './transport.js';

export type { ChangeEvent, FeedReset, RecordChange, SubscribeOptions } from './change-stream.js';
export { CollectionClient, etagOf, type Page, type Patch } from './collection.js';
export type { ListQuery, Operators, Scalar } from './list-query.js';
export { type Problem, ProblemError } from './problem-error.js';
export type { Stored, SystemFields } from './stored.js';
export { type ClientOptions, OVERRIDE_HEADER } from './transport.js';

/** The collections a client knows, by plural name, with the fields of their records. */
export type Collections<C> = { [K in keyof C]: object };

export interface Client<C extends Collections<C>> {
  collection<K extends keyof C & string>(name: K): CollectionClient<C[K]>;
}

export function createClient<C extends Collections<C> = Record<string, Record<string, unknown>>>(
  options: ClientOptions,
): Client<C> {
  const transport = new Transport(options);
  return { collection: (name) => new CollectionClient(transport, name) };
}
