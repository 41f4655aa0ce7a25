/**
 * Unique fields as unique expression indexes (the same SQL on every dialect), and the
 * query that finds the records that would break one.
 */
import { createHash } from 'node:crypto';
import { type Duplicate, StoreSetupError, type UniqueField, UniqueViolationError } from '../store.js';
import type { SqlDialect } from './dialect.js';
import type { Sql } from './program.js';

/** The index that keeps `field` unique; its name is how a violation is traced back to the field. */
export function uniqueIndexName(field: UniqueField): string {
  const digest = createHash('sha1')
    .update(`${field.path.join('.')}${field.ignoreCase ? '/i' : ''}`)
    .digest('hex')
    .slice(0, 6);
  return `${uniqueIndexPrefix(field.collection, field.path.join('_'))}_${digest}`;
}

function uniqueIndexPrefix(collection: string, path: string): string {
  return `${collection}_unique_${path}`.slice(0, 48);
}

/** An index of a collection's table, as the database lists it. */
export interface ExistingIndex {
  table: string;
  name: string;
  unique: boolean;
}

/**
 * The unique indexes restock made (named by {@link uniqueIndexName}) for fields that
 * `declared` no longer lists: dropping them is what takes a field out of x-unique.
 * Indexes named otherwise are the operator's, and left alone.
 */
export function staleUniqueIndexes(existing: readonly ExistingIndex[], declared: readonly UniqueField[]): string[] {
  const wanted = new Set(declared.map(uniqueIndexName));
  return existing
    .filter(({ table, name, unique }) => unique && !wanted.has(name) && isUniqueIndexName(table, name))
    .map(({ name }) => name);
}

function isUniqueIndexName(table: string, name: string): boolean {
  const prefix = uniqueIndexPrefix(table, '');
  return name.length <= 55 && name.startsWith(prefix) && /_[0-9a-f]{6}$/.test(name.slice(prefix.length));
}

/** The statement that drops the index `name` (one that is gone already is no error). */
export function dropIndexSql(name: string): string {
  return `DROP INDEX IF EXISTS "${name}"`;
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

/**
 * The record whose unique `field` holds the text `value` (lower-cased in ASCII by the caller
 * where the field ignores case), through the field's unique index: its leading term is the
 * value's JSON type, named `text` by SQLite and `string` by PostgreSQL.
 */
export function selectByUniqueSql(dialect: SqlDialect, field: UniqueField, columns: string, value: string): Sql {
  const [type, term] = dialect.uniqueTerms(literalPath(dialect, field.path), field.ignoreCase);
  const text = `SELECT ${columns} FROM "${field.collection}" WHERE ${type} IN ('text', 'string') AND ${term} = ${dialect.placeholder(1)}`;
  return { text, values: [value] };
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

/**
 * What a start reports when the unique index of `field` cannot be made: the records
 * that share a value, in one line; or, when none do, the database's own `error`.
 */
export function uniqueIndexFailure(field: UniqueField, duplicates: readonly DuplicateRow[], error: unknown): unknown {
  return duplicates.length > 0 ? new StoreSetupError(duplicatesMessage(field, duplicates.map(toDuplicate))) : error;
}

/** A unique index's refusal of a write, as the database reports it. */
export interface Violation {
  index: string;
  /** The collection's table. */
  table: string;
  /** The index's definition, or the database's account of the violation. */
  definition: string;
}

/**
 * The {@link UniqueViolationError} of a violation: naming the field of `known` whose index
 * it is, else (an index made by an instance with a newer x-unique, or by the operator) the
 * field the index definition shows, else none; a conflict all the same, never a failure.
 */
export function uniqueViolation(
  dialect: SqlDialect,
  known: ReadonlyMap<string, UniqueField>,
  { index, table, definition }: Violation,
): UniqueViolationError {
  const field = known.get(index);
  if (field) return new UniqueViolationError(field.collection, field.path);
  return new UniqueViolationError(table, dialect.uniquePath(definition) ?? []);
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
