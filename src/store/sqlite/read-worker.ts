/**
 * A thread of the read pool (read-pool.ts): its own connection to the database file, which
 * WAL lets read beside the writer, answering one statement at a time.
 */
import { workerData } from 'piscina';
import { FOLD_CASE_FUNCTION, foldCase } from '../sql/case-fold.js';
import Database from './sqlite-library.js';
import { readRows, statementCache } from './statement-cache.js';

/** What the pool asks of a thread. */
export interface ReadRequest {
  sql: string;
  params: Record<string, unknown>;
  /** Stop once the rows' data hold this many bytes (see readRows). */
  maxBytes?: number;
}

/** What a thread answers: the rows, or the error's message and SQLite code (errors lose their class on the way). */
export type ReadReply = { rows: Record<string, unknown>[] } | { error: { message: string; code?: string } };

const { path, busyTimeoutMs } = workerData as { path: string; busyTimeoutMs: number };
const db = new Database(path, { fileMustExist: true });
// Waiting for a lock here holds only this thread; the event loop goes on.
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma('query_only = 1');
db.function(FOLD_CASE_FUNCTION, { deterministic: true }, (text) => foldCase(String(text)));
const prepare = statementCache(db);

export default function read({ sql, params, maxBytes }: ReadRequest): ReadReply {
  try {
    return { rows: readRows(prepare(sql), params, maxBytes) };
  } catch (error) {
    const { message, code } = error as { message: string; code?: string };
    return { error: { message, ...(typeof code === 'string' ? { code } : {}) } };
  }
}
