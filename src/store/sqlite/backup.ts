/**
 * An online, consistent copy of a SQLite database, for `restock backup`. `VACUUM INTO` reads
 * the database in one read transaction, so the copy is one moment's state; in WAL mode that
 * read does not block the server's writes, which go on meanwhile. (SQLite's page-by-page
 * backup API starts over whenever another connection writes, so under a busy server it
 * might never finish.) The copy is compacted, and is a database restock opens as it is.
 *
 * The copy holds what the database does, signing keys and password hashes included, so it
 * is made for its owner alone (0600), as an export with password hashes is: created empty
 * with that mode first (VACUUM INTO writes into an empty file), never readable even for a moment.
 */
import { closeSync, openSync, statSync } from 'node:fs';
import { BUSY_TIMEOUT_MS } from './connection.js';
import Database from './sqlite-library.js';

/** Copies the database at `source` to the new file `destination`; resolves with its size. */
export function backupSqlite(source: string, destination: string): { bytes: number } {
  const db = new Database(source, { fileMustExist: true });
  try {
    closeSync(openSync(destination, 'wx', 0o600));
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.prepare('VACUUM INTO ?').run(destination);
  } finally {
    db.close();
  }
  return { bytes: statSync(destination).size };
}

/**
 * The values of the file fields `fields` of `table` in the database at `path` (a copy
 * backupSqlite made), as JSON text, one record at a time: what `restock backup` copies the
 * files of. Opened read-only, so the copy is left as it was made.
 */
export function* fileValuesIn(path: string, table: string, fields: readonly string[]): Generator<string> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const columns = fields.map(() => `json_extract(data, '$."' || ? || '"')`).join(', ');
    const rows = db
      .prepare(`SELECT ${columns} FROM "${table}"`)
      .raw()
      .iterate(...fields) as Iterable<unknown[]>;
    for (const row of rows) for (const value of row) if (typeof value === 'string') yield value;
  } finally {
    db.close();
  }
}
