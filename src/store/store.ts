/**
 * The storage interface: everything the HTTP layer may ask of a database. One
 * implementation per database lives in its own folder; nothing outside them writes SQL.
 */

/** A record as stored: the client's fields as JSON object text, plus the system fields. */
export interface StoredRecord {
  id: number;
  /** The client's fields, a JSON object in compact text form (`{}` when there are none). */
  data: string;
  /** Starts at 1 and grows by one with every change; the basis of the ETag. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** Which slice of a collection to read, in id order. */
export interface PageRequest {
  limit: number;
  /** Only records with an id greater than this. */
  afterId?: number;
}

/** One collection (users, products, …): its records and the atomic operations on them. */
export interface Collection {
  list(page: PageRequest): Promise<StoredRecord[]>;
  get(id: number): Promise<StoredRecord | undefined>;
  /** Stores a new record; resolves once it is durable. */
  create(data: string): Promise<StoredRecord>;
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
   */
  merge(id: number, patch: string): Promise<StoredRecord | undefined>;
  /** Deletes a record; resolves with it as it was, or undefined if no such id. */
  remove(id: number): Promise<StoredRecord | undefined>;
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
}

/** A connected database holding a set of collections. */
export interface Store {
  /** Which database this is, for logs and readiness output. */
  readonly dialect: string;
  /** The gauges this store reports on `/metrics`; a store without any leaves it out. */
  readonly gauges?: readonly StoreGauge[];
  collection(name: string): Collection;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The database cannot be reached or is too busy; the request may be retried later. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
