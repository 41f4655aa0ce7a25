/**
 * Unique fields as unique expression indexes (the same SQL on every dialect), and the
 * query that finds the records that would break one.
 */
import { createHash } from 'node:crypto';
import type { Duplicate, UniqueField } from '../store.js';
import type { SqlDialect } from './dialect.js';

/** The index that keeps `field` unique; its name is how a violation is traced back to the field. */
export function uniqueIndexName(field: UniqueField): string {
  const digest = createHash('sha1')
    .update(`${field.path.join('.')}${field.ignoreCase ? '/i' : ''}`)
    .digest('hex')
    .slice(0, 6);
  return `${`${field.collection}_unique_${field.path.join('_')}`.slice(0, 48)}_${digest}`;
}

export function createUniqueIndexSql(dialect: SqlDialect, field: UniqueField): string {
  const terms = dialect.uniqueTerms(literalPath(dialect, field.path), field.ignoreCase);
  return `CREATE UNIQUE INDEX IF NOT EXISTS "${uniqueIndexName(field)}" ON "${field.collection}" (${terms.join(', ')})`;
}

/** Values of `field` shared by several records: `value`, `n`, and `ids` (comma-separated). */
export function selectDuplicatesSql(dialect: SqlDialect, field: UniqueField, limit: number): string {
  const [type, value] = dialect.uniqueTerms(literalPath(dialect, field.path), field.ignoreCase);
  return `SELECT ${value} AS value, count(*) AS n, ${dialect.idList()} AS ids FROM "${field.collection}"
    WHERE ${value} IS NOT NULL GROUP BY ${type}, ${value} HAVING count(*) > 1 ORDER BY n DESC LIMIT ${Number(limit)}`;
}

/** A row of {@link selectDuplicatesSql}. */
export interface DuplicateRow {
  value: unknown;
  n: number | string;
  ids: string;
}

export function toDuplicate(row: DuplicateRow): Duplicate {
  return { value: String(row.value), count: Number(row.n), ids: row.ids.split(',').map(Number) };
}

/** Unique fields come from schema files whose `x-unique` allows plain names only, so they are written literally. */
function literalPath(dialect: SqlDialect, path: readonly string[]): string {
  return dialect.path(
    path,
    () => {
      throw new Error('a literal path takes no parameter');
    },
    true,
  );
}

/** One line naming the records that keep `field` from being unique. */
export function duplicatesMessage(field: UniqueField, duplicates: readonly Duplicate[]): string {
  const shared = duplicates.map((d) => `${d.count} share ${JSON.stringify(d.value)} (ids ${idList(d.ids)})`);
  return (
    `cannot make ${field.collection}.${field.path.join('.')} unique: ${shared.join('; ')}. ` +
    'Fix those records (restock check lists them) or drop the field from x-unique.'
  );
}

/** Ids for a message: all of a few, the first ten of many. */
export function idList(ids: readonly number[]): string {
  return ids.length <= 10 ? ids.join(', ') : `${ids.slice(0, 10).join(', ')} and ${ids.length - 10} more`;
}
