/**
 * A SQLite connection the way restock needs it: WAL, every commit fsynced, restock's SQL
 * functions, and statements run from their SQL text through a cache of prepared ones.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database as Db } from 'better-sqlite3';
import type { Catalog } from '../../core/catalog.js';
import { FOLD_CASE_FUNCTION, foldCase } from '../sql/case-fold.js';
import { type Program, type Result, runProgram, type Sql } from '../sql/program.js';
import { isUniqueFailure, tableTarget } from '../sql/sql-store.js';
import { syncTables } from '../sql/table-sync.js';
import { SEARCH_TEXT_FUNCTION, searchText } from './search-index.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { sqliteFaults } from './sqlite-faults.js';
import Database from './sqlite-library.js';
import { sqliteTables } from './sqlite-tables.js';
import { readRows, statementCache } from './statement-cache.js';

/** How long a writer waits for another process's write lock before giving up (ms): DATABASE_LOCK_TIMEOUT's default. */
export const BUSY_TIMEOUT_MS = 5000;

/** Opens (creating when needed) the database file at `path`, or `:memory:`. */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // First, so that every later step waits for another process's lock instead of failing.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  switchToWal(db);
  // FULL: a commit returns only once the WAL is fsynced, so an acknowledged write survives
  // a power loss, not just a crash of the process.
  db.pragma('synchronous = FULL');
  // For q= search (see sqlite-dialect.ts); deterministic, so SQLite may reuse its results.
  db.function(FOLD_CASE_FUNCTION, { deterministic: true }, (text) => foldCase(String(text)));
  // For the search index's triggers (see search-index.ts).
  db.function(SEARCH_TEXT_FUNCTION, { deterministic: true }, (data) => searchText(String(data)));
  return db;
}

/**
 * Puts a new file in WAL mode. Two processes doing so at the same moment (`--workers`, or
 * instances starting together) can each hold the lock the other needs, and SQLite then
 * answers SQLITE_BUSY at once, without waiting: so it is tried again, for as long as any
 * lock is waited for. This runs before the process serves, so a blocking pause is harmless.
 */
function switchToWal(db: Db): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5 + Math.random() * 20);
    }
  }
}

/** Runs statements of the core on `db`, synchronously; a read stops at `maxBytes` of data. */
export function statementRunner(db: Db): (statement: Sql, maxBytes?: number) => Result {
  const prepare = statementCache(db);
  return ({ text, values }, maxBytes) => {
    const prepared = prepare(text);
    const params = named(values);
    if (!prepared.reader) return { rows: [], changes: prepared.run(params).changes };
    const rows = readRows(prepared, params, maxBytes);
    return { rows, changes: rows.length };
  };
}

/** The values of a statement, for its `@p1, @p2, …` parameters. */
export function named(values: readonly unknown[]): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  for (let i = 0; i < values.length; i++) bound[`p${i + 1}`] = values[i];
  return bound;
}

/**
 * Opens the database at `path` and brings its tables in line with `catalog` (tables,
 * indexes, unique fields, references), as the store does on open; for tools and tests that
 * use the file directly.
 */
export function openConnection(path: string, catalog: Catalog): Db {
  const db = openDatabase(path);
  try {
    const target = tableTarget(catalog);
    const unique = isUniqueFailure({ fault: sqliteFaults(db) });
    runLocked(db, statementRunner(db), syncTables(sqliteDialect, sqliteTables, target, unique));
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Runs `program` in one transaction that takes the write lock first (BEGIN IMMEDIATE). */
export function runLocked<T>(db: Db, run: (statement: Sql) => Result, program: Program<T>): T {
  return db.transaction(() => runProgram(program, run)).immediate();
}
