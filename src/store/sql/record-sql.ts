/**
 * The statements of one collection's table that every request runs, written once for every
 * database (a dialect fills in what differs). The benchmark's plain baseline runs these too.
 */
import type { SqlDialect } from './dialect.js';
import { statement } from './program.js';

/** The columns of a {@link StoredRecord}. */
export function recordColumns(dialect: SqlDialect): string {
  return `id, ${dialect.dataText} AS data, version, created_at AS "createdAt", updated_at AS "updatedAt"`;
}

/**
 * The statements of one collection's table that run with every request, by role; named, so
 * that PostgreSQL keeps each prepared. The benchmark's plain baseline runs these too.
 */
export function collectionSql(dialect: SqlDialect, table: string) {
  const t = `"${table}"`;
  const columns = recordColumns(dialect);
  const named = <K extends string>(role: string, build: (param: (name: K) => string) => string) =>
    statement<K>(dialect.placeholder, build, `${table}.${role}`);
  const remove = (p: (name: 'id') => string) => `DELETE FROM ${t} WHERE id = ${p('id')}`;
  return {
    get: named<'id'>('get', (p) => `SELECT ${columns} FROM ${t} WHERE id = ${p('id')}`),
    getMany: named<'ids'>('getMany', (p) => `SELECT ${columns} FROM ${t} WHERE ${dialect.inList('id', p('ids'))}`),
    insert: named<'data' | 'now'>(
      'insert',
      (p) =>
        `INSERT INTO ${t} (data, created_at, updated_at) VALUES (${dialect.json(p('data'), false)}, ` +
        `${dialect.now(p)}, ${dialect.now(p)}) RETURNING ${columns}`,
    ),
    // A merge reads the row under the transaction's lock (one that lets records naming it be written), and writes the fields merged in
    // the application (merge-patch.ts): no other write to the record comes in between.
    lock: named<'id'>('lock', (p) => `SELECT ${columns} FROM ${t} WHERE id = ${p('id')}${dialect.forUpdate}`),
    lockToChange: named<'id'>(
      'lockToChange',
      (p) => `SELECT ${columns} FROM ${t} WHERE id = ${p('id')}${dialect.forChange}`,
    ),
    // A batch's records, locked before its first step in id order (sql-batch.ts): the order
    // is the sort's, which PostgreSQL applies before it locks the rows it returns.
    lockManyToChange: named<'ids'>(
      'lockManyToChange',
      (p) => `SELECT id FROM ${t} WHERE ${dialect.inList('id', p('ids'))} ORDER BY id${dialect.forChange}`,
    ),
    update: named<'id' | 'data' | 'now'>(
      'update',
      (p) =>
        `UPDATE ${t} SET data = ${dialect.json(p('data'), false)}, version = version + 1, ` +
        `updated_at = ${dialect.now(p)} WHERE id = ${p('id')} RETURNING ${columns}`,
    ),
    // A trigger on the table makes an Idempotency-Key forget its copy of a deleted record,
    // in the same statement (see each database's tables: sqlite-tables.ts, postgres-tables.ts).
    remove: named<'id'>('remove', (p) => `${remove(p)} RETURNING ${columns}`),
    removeIf: named<'id' | 'versions'>(
      'removeIf',
      (p) => `${remove(p)} AND ${dialect.inList('version', p('versions'))} RETURNING ${columns}`,
    ),
  };
}
