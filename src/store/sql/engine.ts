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
import type { Result } from './program.js';

/** The walk of a table's primary key, as {@link Serves} names it. */
export const PRIMARY_KEY = Symbol('primary key');

/**
 * Whether a range of `index` (an index's name, or the primary key; null: a walk of no
 * range, which only a query without conditions reads no further than it returns) answers
 * every condition of a list query itself, leaving no row to a filter. An engine's plan
 * reader asks it where its planner does not say: SQLite's names the index it searches,
 * not what it leaves over.
 */
export type Serves = (index: string | typeof PRIMARY_KEY | null) => boolean;

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
  /**
   * Whether a list's plan (the rows of the driver's `plan`) reads rows the page does not
   * return; `serves` answers for an index the plan walks when the plan does not say.
   */
  readsPastPage(plan: Result['rows'], serves: Serves): boolean;
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
