/**
 * The indexes of a collection's indexed fields (x-index, INDEXES): the same expressions a filter or sort on the
 * field compares, so that the database answers those from the index.
 */
import { createHash } from 'node:crypto';
import type { Collection } from '../../core/collection.js';
import { type IndexedField, StoreSetupError } from '../store.js';
import type { SqlDialect } from './dialect.js';
import { Builder, type IsIndexed } from './list-terms.js';
import { type Program, sql } from './program.js';
import { idList } from './unique-sql.js';

/** The expressions an index on `path` holds: those a filter or sort on it compares, then id. */
export function indexTerms(dialect: SqlDialect, path: readonly string[]): string[] {
  const builder = new Builder(dialect, () => true);
  return [...builder.valueTerms({ path }), dialect.columns.id];
}

/** The statements that create the indexes of `fields`, if missing (same SQL on every dialect). */
export function createIndexStatements(dialect: SqlDialect, fields: readonly IndexedField[]): string[] {
  return fields.map(
    (field) =>
      `CREATE INDEX IF NOT EXISTS "${indexName(field)}" ON "${field.collection}" (${indexTerms(dialect, field.path).join(', ')})`,
  );
}

/** The name of the index of `field`. */
export function indexName({ collection, path }: IndexedField): string {
  const digest = createHash('sha1').update(path.join('.')).digest('hex').slice(0, 6);
  return `${`${collection}_by_${path.join('_')}`.slice(0, 48)}_${digest}`;
}

/**
 * Stops the start when a record holds a value over `maxBytes` in one of `fields` about to
 * be indexed (writes refuse such values once a field is indexed): PostgreSQL could not
 * index it, and SQLite would keep what the API refuses.
 */
export function* refuseOversizedValues(
  dialect: SqlDialect,
  fields: readonly IndexedField[],
  maxBytes: number,
): Program<void> {
  for (const { collection, path } of fields) {
    const text = indexTerms(dialect, path)[2] as string;
    const { rows } = yield sql(
      `SELECT id FROM "${collection}" WHERE ${dialect.byteLength(text)} > ${Number(maxBytes)} ORDER BY id LIMIT 11`,
    );
    if (rows.length === 0) continue;
    const ids = rows.map((row) => Number(row.id));
    const records =
      ids.length === 1
        ? `record ${ids[0]} holds`
        : `records ${idList(ids.slice(0, 10))}${ids.length > 10 ? ' and more' : ''} hold`;
    throw new StoreSetupError(
      `cannot index ${collection}.${path.join('.')}: ${records} a value over ${maxBytes} bytes ` +
        '(MAX_INDEXED_VALUE_BYTES). Shorten those values or stop indexing the field.',
    );
  }
}

/** A test of whether a path is one of `collection`'s indexed fields, for the list query builder. */
export function indexedIn(collection: Pick<Collection, 'indexes'>): IsIndexed {
  const paths = new Set(collection.indexes.map((field) => field.path.join('.')));
  return (path) => paths.has(path.join('.'));
}
