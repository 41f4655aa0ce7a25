/**
 * The files' upkeep (../file-upkeep-model.ts) on any SQL database: one row per collection
 * holding the reaper's place in the change log, and a keyset read of the file fields alone.
 */
import type { FileUpkeep } from '../file-upkeep-model.js';
import type { Guard } from './driver.js';
import type { SqlEngine } from './engine.js';
import { type Program, sql, statement } from './program.js';

/** The DDL of the "file reaper" shared migration (./shared-migrations.ts). */
export function* createFileReaperCursors(idType: string): Program<void> {
  yield sql(`CREATE TABLE file_reaper_cursors (
    collection TEXT PRIMARY KEY,
    seq        ${idType} NOT NULL
  )`);
}

export function sqlFileUpkeep({ driver, dialect }: Pick<SqlEngine, 'driver' | 'dialect'>, guard: Guard): FileUpkeep {
  const select = statement<'collection'>(
    dialect.placeholder,
    (p) => `SELECT seq FROM file_reaper_cursors WHERE collection = ${p('collection')}`,
  );
  // Moves only forward, so that instances running the reaper together never undo each other.
  const advance = statement<'collection' | 'seq'>(
    dialect.placeholder,
    (p) =>
      `INSERT INTO file_reaper_cursors (collection, seq) VALUES (${p('collection')}, ${p('seq')}) ` +
      'ON CONFLICT (collection) DO UPDATE SET seq = excluded.seq WHERE file_reaper_cursors.seq < excluded.seq',
  );
  return {
    async reaped(collection) {
      const { rows } = await guard(driver.read(select({ collection }), false));
      return rows[0] === undefined ? 0 : Number(rows[0].seq);
    },
    async advance(collection, seq) {
      await guard(driver.write(advance({ collection, seq })));
    },
    async fileValues(collection, fields, after, limit) {
      const values: unknown[] = [];
      const param = (value: unknown) => {
        values.push(value);
        return dialect.placeholder(values.length);
      };
      const columns = fields.map((field, n) => `${dialect.text(dialect.path([field], param, false))} AS f${n}`);
      const text =
        `SELECT id, ${columns.join(', ')} FROM "${collection}" ` +
        `WHERE id > ${param(after)} ORDER BY id LIMIT ${param(limit)}`;
      const { rows } = await guard(driver.read({ text, values }, false), collection);
      return rows.map((row) => ({ id: Number(row.id), values: fields.map((_, n) => String(row[`f${n}`] ?? '')) }));
    },
  };
}
