/**
 * Which SQLite errors mean something to the store: "not now" rather than "this request is
 * wrong", a unique index's refusal (traced back to its field), the end of a table's ids.
 */
import type { Database as Db } from 'better-sqlite3';
import type { Fault } from '../sql/driver.js';
import { IDS_EXHAUSTED } from './sqlite-tables.js';

/** Result codes of a database that is busy, locked, full or gone. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;

export function sqliteFaults(db: Db): (error: unknown) => Fault | undefined {
  // SQLite names only the index a write broke: its table and definition are in sqlite_master.
  const definition = db.prepare(`SELECT tbl_name AS "table", sql FROM sqlite_master WHERE type = 'index' AND name = ?`);
  return (error) => {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code !== 'string') return undefined;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
      const index = /index '([^']+)'/.exec(String(message))?.[1] ?? '';
      const found = definition.get(index) as { table: string; sql: string | null } | undefined;
      if (!found) return { kind: 'unique' };
      return { kind: 'unique', violation: { index, table: found.table, definition: found.sql ?? '' } };
    }
    if (code === 'SQLITE_CONSTRAINT_TRIGGER' && String(message).includes(IDS_EXHAUSTED))
      return { kind: 'ids-exhausted' };
    if (UNAVAILABLE.test(code)) return { kind: 'unavailable', message: `SQLite is unavailable (${code})` };
    return undefined;
  };
}
