/**
 * SQLite's half of the change log (../sql/change-log-sql.ts): three triggers per collection
 * that number each change through the collection's counter and log it, inside the write's
 * own transaction. SQLite has one writer at a time, so numbers follow commit order.
 */
import { type Program, sql } from '../sql/program.js';

const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** The triggers of `table`, where missing. */
export function* syncChangeTriggers(table: string): Program<void> {
  for (const [kind, event, row, previous] of [
    ['created', 'INSERT', 'new', 'NULL'],
    ['updated', 'UPDATE', 'new', 'old.data'],
    ['deleted', 'DELETE', 'old', 'NULL'],
  ] as const) {
    yield sql(`CREATE TRIGGER IF NOT EXISTS "${table}_log_${kind}" AFTER ${event} ON "${table}" BEGIN
      UPDATE change_seqs SET seq = seq + 1 WHERE collection = '${table}';
      INSERT INTO changes (collection, seq, kind, record_id, data, previous, version, created_at, updated_at, logged_at)
        SELECT '${table}', seq, '${kind}', ${row}.id, ${row}.data, ${previous}, ${row}.version, ${row}.created_at,
          ${row}.updated_at, ${NOW} FROM change_seqs WHERE collection = '${table}';
    END`);
  }
}
