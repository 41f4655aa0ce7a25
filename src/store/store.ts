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

/** How a store that connects over the network uses it. */
export interface StoreOptions {
  /** Most connections open at once, per process. */
  poolSize: number;
  /** How long to wait for a new connection before the request gets a 503. */
  connectTimeoutMs: number;
  /** How long one statement may run before the database cancels it (a 503). */
  statementTimeoutMs: number;
}

/** A connected database holding a set of collections. */
export interface Store {
  /** Which database this is, for logs and readiness output. */
  readonly dialect: string;
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
