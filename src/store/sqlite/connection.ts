/**
 * Opening a SQLite database the way restock needs it: a busy timeout for the write lock
 * other processes may hold, WAL, every commit fsynced, restock's SQL functions, and the
 * schema migrated.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database as Db } from 'better-sqlite3';
import { FOLD_CASE_FUNCTION, foldCase } from '../sql/case-fold.js';
import { migrate } from './migrations.js';
import { SEARCH_TEXT_FUNCTION, searchText } from './search-index.js';
import Database from './sqlite-library.js';

/** How long a writer waits for another process's write lock before giving up (ms). */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating when needed) the database file at `path`, or `:memory:`, migrates it and
 * runs `extra` (idempotent statements: the configured indexes).
 */
export function openConnection(path: string, collections: readonly string[], extra: readonly string[] = []): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // First, so that every later step waits for another process's lock instead of failing.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  // FULL: a commit returns only once the WAL is fsynced, so an acknowledged write survives
  // a power loss, not just a crash of the process.
  db.pragma('synchronous = FULL');
  // For q= search (see sqlite-dialect.ts); deterministic, so SQLite may reuse its results.
  db.function(FOLD_CASE_FUNCTION, { deterministic: true }, (text) => foldCase(String(text)));
  // For the search index's triggers (see search-index.ts).
  db.function(SEARCH_TEXT_FUNCTION, { deterministic: true }, (data) => searchText(String(data)));
  migrate(db, collections, extra);
  return db;
}
