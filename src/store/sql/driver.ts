/**
 * Two of an engine's four roles (./engine.ts): the driver runs statements and units of work
 * and reads its errors; the tables' DDL (below) is that of restock's own tables and of each
 * collection's. Everything else (collections, conditional writes, Idempotency-Key claims,
 * index and unique-index sync, the migration runner) is written once, in the core.
 * CONTRIBUTING.md lists what a new database needs.
 */
import type { StoreGauge } from '../store.js';
import type { Program, Result, Sql } from './program.js';
import type { Violation } from './unique-sql.js';

export interface SqlDriver {
  /** The database's name, for logs, readiness and messages ("sqlite", "postgres"). */
  readonly name: string;
  /** Gauges for `/metrics` (pool, threads, batches). */
  readonly gauges: readonly StoreGauge[];
  /**
   * Runs a read. A `costly` one (its plan reads rows it does not return: sql/query-plan.ts)
   * may take long, and must never hold the event loop while it does.
   */
  read(statement: Sql, costly: boolean, maxBytes?: number): Promise<Result>;
  /**
   * The planner's account of a read, as rows, without running it. It says what the indexes
   * can do: where the planner would scan a table only because the table is small, the
   * driver turns that choice off for the question.
   */
  plan(statement: Sql): Promise<Result>;
  /**
   * Runs the change feeds' read of what just committed, on connections of their own where
   * the driver pools them, so that it never waits behind requests; without it, `read`.
   */
  readChanges?(statement: Sql): Promise<Result>;
  /** Runs one write; resolves once it is durable. */
  write(statement: Sql): Promise<Result>;
  /**
   * Runs a unit of work in one transaction: all of it or none, durable when it resolves.
   * `work` may be called again (a retry after a lock another process held).
   */
  transaction<T>(work: () => Program<T>): Promise<T>;
  /**
   * Runs table work in one transaction under the migration lock, which one process holds
   * at a time: instances starting together change the tables once, one after the other.
   */
  locked<T>(work: () => Program<T>): Promise<T>;
  /** What an error the database raised means to the store; undefined for anything else. */
  fault(error: unknown): Fault | undefined;
  /**
   * Calls `wake` whenever changes may have committed, from this process or another (a
   * notification naming the collection, or a poll); returns how to stop.
   */
  watchChanges(wake: (collection?: string) => void): () => void;
  /**
   * Resolves once every change committed so far has its number, for a driver that numbers
   * them after commit (PostgreSQL); one that numbers them as it writes leaves it out.
   */
  numberChanges?(): Promise<void>;
  /** Resolves when the database answers a trivial query, on a connection of its own where it can. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The errors the core gives a meaning (see store-errors.ts for what each becomes). */
export type Fault =
  /** Unreachable, restarting, locked past its budget, disk full: a 503. */
  | { kind: 'unavailable'; message: string }
  /** The statement ran past its time budget and was stopped. */
  | { kind: 'timeout' }
  /** A unique index refused the write; `violation` when the index is a collection's. */
  | { kind: 'unique'; violation?: Violation }
  /** The table's ids reached {@link MAX_ID}. */
  | { kind: 'ids-exhausted' }
  /** An index refused an entry too large for it (PostgreSQL's B-tree, past about 2.7 KB). */
  | { kind: 'index-entry-too-large' };

/** One versioned change to restock's own tables. */
export interface Migration {
  version: number;
  name: string;
  up(collections: readonly string[]): Program<void>;
}

/** The DDL of one database. */
export interface TableDdl {
  /** Applied in order, each once, recorded in `schema_migrations`. */
  readonly migrations: readonly Migration[];
  /**
   * Makes what the collections need and lack (table, search index, triggers), on every
   * start; a collection added since the database was made gets its table here. Without
   * `searchIndex`, a search index there is dropped.
   */
  syncCollections(collections: readonly string[], searchIndex: boolean): Program<void>;
  /** The indexes of the collections' tables: `table`, `name`, and `unique` (truthy). */
  listIndexes(collections: readonly string[]): Sql;
}

/** Maps a driver's error to the store's, naming the collection whose write it was. */
export type Guard = <T>(work: Promise<T>, table?: string) => Promise<T>;
