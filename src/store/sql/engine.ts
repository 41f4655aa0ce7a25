/**
 * One database engine as the SQL core takes it, in Kysely's four roles: the driver runs
 * statements and units of work (./driver.ts); the dialect writes the SQL that differs
 * (./dialect.ts); the adapter says what the engine can do, which changes the SQL the core
 * chooses to write, never how it is written; and the tables' DDL makes and migrates
 * restock's tables (`TableDdl`). Each engine's folder exports one `open` that gives all
 * four, with the same shape: src/store/sqlite/index.ts and src/store/postgres/index.ts.
 */
import type { StoreOptions } from '../store.js';
import type { SqlDialect } from './dialect.js';
import type { SqlDriver, TableDdl } from './driver.js';

export interface SqlAdapter {
  /**
   * Whether the planner seeks an index with a row-value comparison on expression columns
   * (`(a, b) > (?, ?)`); without it, deep pages are read as one range per term.
   */
  readonly seeksRowValues: boolean;
  /**
   * Whether the driver's `read` itself stops once the rows' `data` hold `maxBytes` (the row
   * that reaches it included), reading rows one at a time; otherwise the core writes the
   * stop into the SQL, which costs the database a second pass over the page.
   */
  readonly stopsAtBytes: boolean;
}

export interface SqlEngine {
  readonly driver: SqlDriver;
  readonly dialect: SqlDialect;
  readonly adapter: SqlAdapter;
  readonly tables: TableDdl;
}

/** What writing a query for an engine takes: its dialect, and what its planner can do. */
export type SqlWriter = Pick<SqlEngine, 'dialect' | 'adapter'>;

/** Opens an engine at `location` (a file path, a URL): the shape every engine's `open` has. */
export type OpenEngine = (location: string, options: StoreOptions) => Promise<SqlEngine>;
