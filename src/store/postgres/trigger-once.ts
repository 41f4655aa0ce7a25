/**
 * A trigger made once: PostgreSQL 15 has no CREATE TRIGGER IF NOT EXISTS, and CREATE OR
 * REPLACE would rewrite it (and take its table's lock) on every start.
 */
import { type Program, sql } from '../sql/program.js';

/** Makes trigger `name` on `table` (`CREATE TRIGGER "name" <definition>`), unless it exists. */
export function* triggerOnce(table: string, name: string, definition: string): Program<void> {
  const found = yield sql(`SELECT 1 FROM pg_trigger WHERE tgrelid = '"${table}"'::regclass AND tgname = '${name}'`);
  if (found.rows.length > 0) return;
  yield sql(`CREATE TRIGGER "${name}" ${definition}`);
}
