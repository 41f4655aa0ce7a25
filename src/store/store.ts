/**
 * The storage interface: everything records/, the HTTP layer and the commands may ask of a database. The SQL core
 * (sql/) implements it over a driver per database; nothing outside store/ writes SQL.
 */
import type { Catalog } from '../core/catalog.js';
import type { Collection, Reference } from '../core/collection.js';
import type { IndexedField } from '../core/indexed-field.js';
import type { UniqueField } from '../core/unique-field.js';
import type { AccountTables } from './account-model.js';
import type { BatchPlan, BatchResult } from './batch-model.js';
import type { ChangeLog } from './change-log-model.js';
import type { FileUpkeep } from './file-upkeep-model.js';
import type { ListedRecord, ListQuery } from './list-query-model.js';
import type { MailOutbox } from './mail-model.js';
import type { StoredRecord } from './record-model.js';
import type { WebhookTables } from './webhook-model.js';
import type { AccountWrite, IdempotentCreate, RemoveConditions, WriteConditions } from './write-model.js';

export type { IndexedField, Reference, UniqueField };

/** The most ids one statement of {@link Records.getMany} reads. */
export const MAX_MANY = 1000;

/** Records that share a value of a unique field. */
export interface Duplicate {
  value: string;
  count: number;
  /** Their ids, in order. */
  ids: number[];
}

/** The records of one collection (users, products, …) and the atomic operations on them. */
export interface Records {
  list(query: ListQuery): Promise<ListedRecord[]>;
  /**
   * Whether listing `query` reads rows it does not return, as the database's planner says
   * (a scan, a sort without an index, a filter no index answers, a search, an offset: see
   * sql/query-plan.ts). Counts are always costly.
   */
  isCostly(query: ListQuery): Promise<boolean>;
  /** How many records the query's filters and search match (its paging aside). */
  count(query: Pick<ListQuery, 'where' | 'rule' | 'search'>): Promise<number>;
  get(id: number): Promise<StoredRecord | undefined>;
  /** The records of these ids that exist, in one statement per {@link MAX_MANY} ids. */
  getMany(ids: readonly number[]): Promise<StoredRecord[]>;
  /**
   * Stores a new record (with an account's password hash, verified state and mail,
   * `account`, in the same transaction); resolves once it is durable. With `idempotency`, the claim is
   * completed with the new record in the same transaction, or the create fails with
   * {@link IdempotencyConflictError} if the claim is no longer this request's.
   */
  create(data: string, idempotency?: IdempotentCreate, account?: AccountWrite): Promise<StoredRecord>;
  /**
   * Stores many new records in one transaction: all of them, in order, or none (`accounts[i]`
   * is what `data[i]`'s account write carries). With `idempotency`, the claim is completed
   * with all of them in the same transaction.
   */
  createMany(
    data: readonly string[],
    idempotency?: IdempotentCreate,
    accounts?: readonly (AccountWrite | undefined)[],
  ): Promise<StoredRecord[]>;
  /**
   * Writes records exactly as given (ids, versions and timestamps kept), in one
   * transaction, all or none; for moving data between stores. Later creates get ids above
   * every restored one. A record whose id is taken fails the whole batch. `secrets[i]` is
   * `records[i]`'s password hash, if it has one (an account collection's), written with it.
   */
  restore(records: readonly StoredRecord[], secrets?: readonly (string | undefined)[]): Promise<void>;
  /**
   * Applies a JSON Merge Patch (RFC 7396; as JSON text, or the parsed object, which is not
   * changed) to the stored fields, in one atomic step (read, merge and write in one
   * transaction); resolves with the result once durable, or undefined if no such id.
   * `conditions` are checked in the same step; a unique field taken by another record
   * throws {@link UniqueViolationError}, as on create.
   */
  merge(id: number, patch: string | object, conditions?: WriteConditions): Promise<StoredRecord | undefined>;
  /**
   * Replaces a record's fields with `data` (JSON text), as a new version; resolves with the
   * result once durable, or undefined if no such id. For `restock import --upsert`. With
   * `secret`, the account's password hash is replaced in the same transaction; without, it is kept.
   */
  replace(id: number, data: string, secret?: string): Promise<StoredRecord | undefined>;
  /**
   * Deletes a record; resolves with it as it was, or undefined if no such id. `ifVersion` as
   * for merge. In the same transaction, an `Idempotency-Key` that created the record forgets
   * its copy of it (a retry then hears it is gone).
   */
  remove(id: number, conditions?: RemoveConditions): Promise<StoredRecord | undefined>;
  /**
   * The record whose `field` (a unique one) holds the text `value`, compared as the field's
   * unique index compares it (ignoring ASCII case where it does); for signing in.
   */
  findUnique(field: Omit<UniqueField, 'collection'>, value: string): Promise<StoredRecord | undefined>;
  /** An account's password hash; undefined for a record without one. */
  secretOf(id: number): Promise<string | undefined>;
  /**
   * The password hashes of the accounts among `ids` that have one, by id, in one statement
   * per {@link MAX_MANY} ids (`restock export --password-hashes`, a page at a time). Empty
   * for a collection that holds no accounts.
   */
  secretsOf(ids: readonly number[]): Promise<Map<number, string>>;
  /** Values of `field` that several records share (at most `limit` of them). */
  duplicates(field: Omit<UniqueField, 'collection'>, limit: number): Promise<Duplicate[]>;
}

/** The `collection` of a key whose request was a batch: its `record` is the batch's answer, as it was sent. */
export const BATCH_ANSWER = '';

/** The stored outcome of an `Idempotency-Key`. */
export type IdempotencyClaim =
  | { state: 'claimed' }
  | { state: 'running' }
  | { state: 'mismatch' }
  /** The key's create succeeded: its record, or the records of a bulk create, to replay. */
  | { state: 'done'; collection: string; record: StoredRecord | StoredRecord[] }
  /** The key's create succeeded, but its record was deleted since, and its copy with it. */
  | { state: 'gone'; collection: string; id: number };

/**
 * `Idempotency-Key`s, kept in the database so that every instance sees them and they outlive restarts.
 */
export interface IdempotencyKeys {
  /**
   * Claims `key` for a request with this `fingerprint`, or reports what became of it.
   * A claim still running after `staleAfterMs` belonged to a process that died before
   * it wrote anything (the write and the completion are one transaction), and is taken over.
   */
  claim(
    scope: string,
    key: string,
    fingerprint: string,
    token: string,
    staleAfterMs: number,
  ): Promise<IdempotencyClaim>;
  /** Gives up a claim whose request failed, so that a retry runs again. */
  release(scope: string, key: string, token: string): Promise<void>;
  /** Forgets keys created before `before`; resolves with how many. */
  sweep(before: Date): Promise<number>;
  /**
   * The key of the requests' fingerprints (HMAC-SHA-256), kept in the database: the same
   * for every instance on it, so a retry is recognised by whichever instance it reaches.
   */
  fingerprintKey(): Promise<Buffer>;
}

/**
 * A number a store reports on `/metrics` (pool size, group-commit batch size, …), read at
 * each scrape and served as the Prometheus gauge `restock_store_<name>`.
 */
export interface StoreGauge {
  /** snake_case, without the `restock_store_` prefix. */
  name: string;
  /** One line saying what the number is. */
  help: string;
  /** The labels' names, when `read` answers one value per label set. */
  labelNames?: readonly string[];
  /** The value now: one number, or one per label set (`{ labels: { state: 'idle' }, value: 3 }`). */
  read(): number | readonly { labels: Record<string, string>; value: number }[];
  /** How `--workers` processes' values combine into one (default `sum`, as for pool sizes). */
  aggregator?: 'sum' | 'max' | 'min' | 'average' | 'first';
}

/** A connected database holding a set of collections. */
export interface Store {
  /** Which database this is, for logs and readiness output. */
  readonly dialect: string;
  /** What opening it did to the database's tables: the migrations it applied, the tables it made. */
  readonly synced: TableSync;
  /** The gauges this store reports on `/metrics`; a store without any leaves it out. */
  readonly gauges?: readonly StoreGauge[];
  /** A collection's records: the collection itself, or its plural (the command line's and tests' way). */
  collection(of: Collection | string): Records;
  readonly idempotency: IdempotencyKeys;
  readonly changes: ChangeLog;
  readonly accounts: AccountTables;
  readonly mail: MailOutbox;
  readonly fileUpkeep: FileUpkeep;
  readonly webhooks: WebhookTables;
  /**
   * Runs the steps `plan` gives, on any collections, in one transaction: all of them or
   * none. Resolves with each step's result, in order, once durable.
   */
  batch(plan: BatchPlan): Promise<BatchResult[]>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What opening a store did to its tables, for `restock migrate` to say. */
export interface TableSync {
  /** The migrations recorded before, by version: none for a database made by this open. */
  before: number[];
  /** The migrations this open applied, in order. */
  applied: number[];
  /**
   * The collections whose tables this open made, told by their change counters, which every
   * collection gets with its table; undefined when the change log itself was made now on a
   * database that had tables before it, where a new counter does not mean a new table.
   */
  added: string[] | undefined;
}

/**
 * What a store keeps for each collection of `catalog` (its `Records`, its programs), made
 * once by `make`. A collection is found through the catalog the store was opened with, by
 * its plural: the app or a test may hold another catalog of the same declarations, whose
 * `Collection`s are other objects. A name the store was not opened with is a programming error.
 */
export function collectionLookup<T>(catalog: Catalog, make: (collection: Collection) => T) {
  const of = catalog.perCollection(make);
  return (named: Collection | string): T => {
    const plural = typeof named === 'string' ? named : named.plural;
    const collection = catalog.byPlural(plural);
    if (!collection) throw new Error(`unknown collection "${plural}"`);
    return of(collection);
  };
}

/** How a store is opened. */
export interface StoreOptions {
  /**
   * Whether the catalog's unique fields get their unique indexes on start (existing
   * duplicates then make the start fail with {@link StoreSetupError} naming them). Default
   * true; false for `restock check`, which lists shared values instead.
   */
  enforceUnique?: boolean;
  /** Most connections open at once, per process (network stores). */
  poolSize: number;
  /** How long to wait for a new connection before the request gets a 503. */
  connectTimeoutMs: number;
  /** How long one statement may run before the database cancels it (a 503). */
  statementTimeoutMs: number;
  /** SQLite: how long a write waits for another process's write lock before it fails (a 503). Default 5000. */
  lockTimeoutMs?: number;
  /** The most bytes a value of an indexed or unique field may hold: a record holding more stops the start. Default 2000. */
  maxIndexedValueBytes?: number;
  /** Whether `q=` search has a trigram index (kept by every write); without, it reads every record. Default true. */
  searchIndex?: boolean;
}

export * from './batch-model.js';
export * from './change-log-model.js';
export * from './file-upkeep-model.js';
export * from './list-query-model.js';
export * from './record-model.js';
export * from './store-errors.js';
export * from './webhook-model.js';
export * from './write-model.js';
