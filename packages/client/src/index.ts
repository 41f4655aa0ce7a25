/**
 * restock's client, for Node.js and browsers: `fetch` and nothing else, no dependencies.
 *
 * ```ts
 * import { createClient } from 'restock-client';
 * import type { Collections, References } from './shop.js'; // written by `restock types`
 *
 * const shop = createClient<Collections, References>({ baseUrl: 'http://127.0.0.1:3000' });
 * const ada = await shop.collection('users').create({ name: 'Ada', email: 'ada@example.com' });
 * for await (const user of shop.collection('users').list({ filter: { name: { startsWith: 'A' } } })) …
 * for await (const change of shop.collection('users').subscribe()) …
 *
 * const [order, cup] = await shop.batch((b) => [ // all or none, in one transaction
 *   b.create('orders', { userId: ada.id, items: [{ productId: 7, quantity: 2 }], status: 'placed' }),
 *   b.update('products', 7, { stock: 8 }, { ifMatch: '"7-3"' }),
 * ]);
 *
 * const me = await shop.auth('users').signIn({ email: 'ada@example.com', password: '…' });
 * // From here on every request, and every change feed, carries Ada's access token.
 * ```
 */
import { AccountClient } from './accounts.js';
import { BatchBuilder, type BatchOperation, type BatchOptions, type BatchResults, sendBatch } from './batch.js';
import { CollectionClient } from './collection.js';
import type { AnyReferences, ReferenceMap } from './query-types.js';
import type { Embeds } from './read-types.js';
import { type IssuedTokens, SessionKeeper } from './session.js';
import { type ClientOptions, Transport } from './transport.js';
import { WebhooksClient } from './webhooks.js';

export { AccountClient, type Provider, type SignInFields } from './accounts.js';
export {
  BatchBuilder,
  BatchOperation,
  type BatchOptions,
  type BatchRecordId,
  type BatchResult,
  type BatchResults,
  type BatchWriteOptions,
  type Referable,
  type ReferableFields,
  Reference,
  ref,
} from './batch.js';
export type { ChangeEvent, FeedReset, RecordChange, SubscribeOptions } from './change-stream.js';
export {
  CollectionClient,
  type CreateOptions,
  type GetOptions,
  type ListOptions,
  type Patch,
  type RecordId,
  type WriteOptions,
} from './collection.js';
export type { FileMeta, FileUrlOptions, Upload, WithUploads } from './files.js';
export type { ListQuery, ReadQuery } from './list-query.js';
export { type Problem, ProblemError } from './problem-error.js';
export type {
  AnyReferences,
  Condition,
  ExpandName,
  ExpressionCondition,
  ExpressionFilter,
  FieldName,
  FieldPath,
  Filter,
  Operators,
  OperatorsFor,
  ReferenceMap,
  Scalar,
  SortKey,
} from './query-types.js';
export type { Embeds, Expansion, Picked, ReadRecord } from './read-types.js';
export { type Page, RecordList } from './record-list.js';
export type { IssuedTokens, Session, SessionListener } from './session.js';
export type {
  Creatable,
  FilesOf,
  NotesKey,
  OwnerOf,
  Readable,
  RecordNotes,
  Stored,
  SystemFields,
  Writable,
  WriteOnlyOf,
} from './stored.js';
export { type ClientOptions, OVERRIDE_HEADER, type RequestOptions } from './transport.js';
export { etagOf } from './versions.js';
export type {
  DeliveriesQuery,
  DeliveryState,
  Replay,
  Webhook,
  WebhookDefinition,
  WebhookDelivery,
  WebhookEvent,
  WebhooksClient,
} from './webhooks.js';
export { type Clause, type FilterText, type Where, where } from './where.js';

/** The collections a client knows, by plural name, with the fields of their records. */
export type Collections<C> = { [K in keyof C]: object };

/** The record type of the collection `users`, the account collection {@link Client.auth} names by default. */
export type UsersOf<C> = 'users' extends keyof C ? C['users' & keyof C] : Record<string, unknown>;

/** The reference fields of collection `K` as `R` names them, for `expand`. */
export type ReferencesOf<R, K> = K extends keyof R ? NonNullable<R[K]> : Record<never, string>;

/** The record type each reference name of `RK` embeds: that of the collection it names, in `C`. */
export type EmbedsOf<C, RK> = {
  [N in keyof RK]: RK[N] extends keyof C ? C[RK[N]] & object : Record<string, unknown>;
} & Embeds<RK>;

/**
 * A client of the collections `C` (records by plural), whose references `R` (by plural: field
 * to the collection it names) `expand` may embed; without `R`, `expand` takes any field.
 */
export interface Client<C extends Collections<C>, R extends ReferenceMap<C> = AnyReferences<C>> {
  collection<K extends keyof C & string>(
    name: K,
  ): CollectionClient<C[K], ReferencesOf<R, K>, EmbedsOf<C, ReferencesOf<R, K>>>;
  /**
   * Signing in to the account collection `users`, and out. A client speaks for one account
   * at a time, whichever collection it signed in through.
   */
  auth(): AccountClient<UsersOf<C> & object>;
  /** Signing in to the account collection `collection` (one whose schema says `x-auth`), and out. */
  auth<K extends keyof C & string>(collection: K): AccountClient<C[K]>;
  /**
   * Runs the operations `build` makes, on any collections, in order in one transaction: all
   * are kept or none. Answers each one's result, typed by its operation. A failure throws the
   * failing operation's {@link ProblemError}, whose `operation` is its index; on a `412`
   * (an `ifMatch` no longer the record's version) read again and send the batch anew.
   */
  batch<const Ops extends readonly BatchOperation<unknown>[]>(
    build: (b: BatchBuilder<C>) => Ops,
    options?: BatchOptions,
  ): Promise<BatchResults<Ops>>;
  /** Managing webhooks: needs a write key (`apiKey`). */
  readonly webhooks: WebhooksClient;
}

export function createClient<
  C extends Collections<C> = Record<string, Record<string, unknown>>,
  R extends ReferenceMap<C> = AnyReferences<C>,
>(options: ClientOptions): Client<C, R> {
  const transport = new Transport(options);
  const keeper = new SessionKeeper(options.now ?? Date.now, async (session) => {
    const body = { refreshToken: session.refreshToken };
    // Never repeated: a refresh token sent twice revokes every token rotated from it.
    const path = `/${session.collection}/auth/refresh/`;
    return (await (await transport.send('POST', path, { body, anonymous: true })).json()) as IssuedTokens<unknown>;
  });
  transport.useCredentials(keeper);
  // The record type is the caller's word for what the collection holds, as for collection().
  const auth = <T extends object>(collection = 'users') => new AccountClient<T>(transport, keeper, collection);
  const builder = new BatchBuilder<C>();
  const batch = async <Ops extends readonly BatchOperation<unknown>[]>(
    build: (b: BatchBuilder<C>) => Ops,
    options: BatchOptions = {},
  ) => (await sendBatch(transport, build(builder), options)) as BatchResults<Ops>;
  const webhooks = new WebhooksClient(transport);
  return { collection: (name) => new CollectionClient(transport, name), auth, batch, webhooks };
}
