/**
 * The storage interface: everything the HTTP layer may ask of a database. One
 * implementation per database lives in its own folder; nothing outside them writes SQL.
 */

/** A record as stored: the client's fields as JSON object text, plus the system fields. */
export interface StoredRecord {
  id: number;
  /**
   * The client's fields as JSON object text, as the database writes it (SQLite keeps the
   * compact text it was given; PostgreSQL's jsonb adds blanks and orders keys its own way).
   */
  data: string;
  /** Starts at 1 and grows by one with every change; the basis of the ETag. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A JSON value a filter compares with. */
export type JsonScalar = string | number | boolean | null;

/** A field of a record: a system field, or a path into the client's fields (`["a","b"]` for `a.b`). */
export type FieldRef = 'id' | 'createdAt' | 'updatedAt' | { readonly path: readonly string[] };

/**
 * How a filter compares. Comparisons are typed: a number only ever equals or orders
 * against numbers, a string against strings (by Unicode code point), so `price[gt]=5`
 * never matches the string "50". `eq null` matches a null or missing field.
 */
export type FilterOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'in' | 'contains' | 'startsWith';

export interface Condition {
  readonly field: FieldRef;
  readonly op: FilterOp;
  /** A list for `in`; the text to look for with `contains` on strings and `startsWith`. */
  readonly value: JsonScalar | readonly JsonScalar[];
}

export interface SortKey {
  readonly field: FieldRef;
  readonly descending: boolean;
}

/**
 * Where a page ends, in a form only the store that made it understands: the values the
 * sort compares for the last record, its id last. JSON-safe, so that it fits in a cursor.
 */
export type Position = readonly (string | number)[];

/** Which records to read, in which order, from where. */
export interface ListQuery {
  /** All must hold. */
  readonly where: readonly Condition[];
  /** Text that some string value of the record must contain, ignoring case. */
  readonly search?: string;
  /** Most significant first; ties are broken by id, in the direction of the last key. Empty: by id. */
  readonly sort: readonly SortKey[];
  readonly limit: number;
  /** Records to skip from the start (with no `after`). */
  readonly offset?: number;
  /** Only records after this one, in the same sort: keyset paging, stable under writes. */
  readonly after?: Position;
}

/** A listed record, with the position a next page continues from. */
export interface ListedRecord extends StoredRecord {
  position: Position;
}

/**
 * A write's precondition (`If-Match`): it applies only while the record's version is one
 * of these; `'*'` asks only that the record exists.
 */
export type VersionCondition = readonly number[] | '*';

/** What a write must hold to go ahead; checked inside the write's own transaction. */
export interface WriteConditions {
  /** `If-Match`: see {@link VersionCondition}; a mismatch throws {@link PreconditionFailedError}. */
  readonly ifVersion?: VersionCondition;
  /**
   * Called with the record's fields as they would be stored; a throw rolls the write back
   * and is passed on (schema validation of a merge's result).
   */
  readonly check?: (data: string) => void;
}

/** A field whose value no two records of a collection may share (missing and null aside). */
export interface UniqueField {
  readonly collection: string;
  readonly path: readonly string[];
  /** Compare text ignoring the case of ASCII letters (e-mail addresses). */
  readonly ignoreCase: boolean;
}

/** Records that share a value of a unique field. */
export interface Duplicate {
  value: string;
  count: number;
  /** Their ids, in order. */
  ids: number[];
}

/** Ties a create to an `Idempotency-Key` claim, so that both are written or neither. */
export interface IdempotentCreate {
  readonly scope: string;
  readonly key: string;
  /** The token of the claim this request holds; another holder means it was taken over. */
  readonly token: string;
}

/** One collection (users, products, …): its records and the atomic operations on them. */
export interface Collection {
  list(query: ListQuery): Promise<ListedRecord[]>;
  /** How many records the query's filters and search match (its paging aside). */
  count(query: Pick<ListQuery, 'where' | 'search'>): Promise<number>;
  get(id: number): Promise<StoredRecord | undefined>;
  /**
   * Stores a new record; resolves once it is durable. With `idempotency`, the claim is
   * completed with the new record in the same transaction, or the create fails with
   * {@link IdempotencyConflictError} if the claim is no longer this request's.
   */
  create(data: string, idempotency?: IdempotentCreate): Promise<StoredRecord>;
  /** Stores many new records in one transaction: all of them, in order, or none. */
  createMany(data: readonly string[]): Promise<StoredRecord[]>;
  /**
   * Writes records exactly as given (ids, versions and timestamps kept), in one
   * transaction, all or none; for moving data between stores. Later creates get ids above
   * every restored one. A record whose id is taken fails the whole batch.
   */
  restore(records: readonly StoredRecord[]): Promise<void>;
  /**
   * Applies a JSON Merge Patch (RFC 7396) to the stored fields inside the database, in
   * one atomic step; resolves with the result once durable, or undefined if no such id.
   * `conditions` are checked in the same step; a unique field taken by another record
   * throws {@link UniqueViolationError}, as on create.
   */
  merge(id: number, patch: string, conditions?: WriteConditions): Promise<StoredRecord | undefined>;
  /** Deletes a record; resolves with it as it was, or undefined if no such id. `ifVersion` as for merge. */
  remove(id: number, conditions?: Pick<WriteConditions, 'ifVersion'>): Promise<StoredRecord | undefined>;
  /** Values of `field` that several records share (at most `limit` of them). */
  duplicates(field: Omit<UniqueField, 'collection'>, limit: number): Promise<Duplicate[]>;
}

/** The stored outcome of an `Idempotency-Key`. */
export type IdempotencyClaim =
  | { state: 'claimed' }
  | { state: 'running' }
  | { state: 'mismatch' }
  | { state: 'done'; collection: string; record: StoredRecord };

/**
 * `Idempotency-Key`s, kept in the database so that every instance sees them and they
 * outlive restarts.
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
}

/** A field path to keep an index on, so that filters and sorts on it do not scan. */
export interface IndexedField {
  readonly collection: string;
  readonly path: readonly string[];
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
  /** The gauges this store reports on `/metrics`; a store without any leaves it out. */
  readonly gauges?: readonly StoreGauge[];
  collection(name: string): Collection;
  readonly idempotency: IdempotencyKeys;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A store's `collection(name)`: each collection made once by `make`; a name the store was
 * not opened with is a programming error.
 */
export function collectionLookup(names: readonly string[], make: (name: string) => Collection) {
  const byName = new Map(names.map((name) => [name, make(name)]));
  return (name: string): Collection => {
    const found = byName.get(name);
    if (!found) throw new Error(`unknown collection "${name}"`);
    return found;
  };
}

/** How a store is opened. */
export interface StoreOptions {
  /** Fields to index, created on start if missing. */
  indexes: readonly IndexedField[];
  /**
   * Fields to keep unique, through unique indexes created on start; existing duplicates
   * make the start fail with {@link StoreSetupError} naming them.
   */
  unique: readonly UniqueField[];
  /** Most connections open at once, per process (network stores). */
  poolSize: number;
  /** How long to wait for a new connection before the request gets a 503. */
  connectTimeoutMs: number;
  /** How long one statement may run before the database cancels it (a 503). */
  statementTimeoutMs: number;
}

/** The database cannot be reached or is too busy; the request may be retried later. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** A conditional write found the record changed (or gone): nothing was written. */
export class PreconditionFailedError extends Error {
  constructor() {
    super('the record is not at the version the request names');
    this.name = 'PreconditionFailedError';
  }
}

/** A position (from a client's cursor) that does not fit the query's sort. */
export class InvalidPositionError extends Error {
  constructor() {
    super('the position does not fit this sort');
    this.name = 'InvalidPositionError';
  }
}

/** An idempotent create lost its claim to another attempt: nothing was written. */
export class IdempotencyConflictError extends Error {
  constructor() {
    super('the idempotency key was taken over by another attempt');
    this.name = 'IdempotencyConflictError';
  }
}

/** A write would give a unique field a value another record has: nothing was written. */
export class UniqueViolationError extends Error {
  constructor(
    readonly collection: string,
    readonly path: readonly string[],
  ) {
    super(`${collection}.${path.join('.')} must be unique`);
    this.name = 'UniqueViolationError';
  }
}

/** The database cannot be set up as configured; the message says why in one line. */
export class StoreSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreSetupError';
  }
}
