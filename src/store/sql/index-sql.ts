/**
 * The indexes of configured fields (INDEXES): the same expressions a filter or sort on the
 * field compares, so that the database answers those from the index.
 */
import { createHash } from 'node:crypto';
import type { IndexedField } from '../store.js';
import type { SqlDialect } from './dialect.js';
import { Builder, type IsIndexed } from './list-terms.js';

/** The expressions an index on `path` holds: those a filter or sort on it compares, then id. */
export function indexTerms(dialect: SqlDialect, path: readonly string[]): string[] {
  const builder = new Builder(dialect, () => true);
  return [...builder.valueTerms({ path }), dialect.columns.id];
}

/** The statements that create the indexes of `fields`, if missing (same SQL on every dialect). */
export function createIndexStatements(dialect: SqlDialect, fields: readonly IndexedField[]): string[] {
  return fields.map(({ collection, path }) => {
    const digest = createHash('sha1').update(path.join('.')).digest('hex').slice(0, 6);
    const name = `${collection}_by_${path.join('_')}`.slice(0, 48);
    return `CREATE INDEX IF NOT EXISTS "${name}_${digest}" ON "${collection}" (${indexTerms(dialect, path).join(', ')})`;
  });
}

/** A test of whether a path is indexed in `collection`, for the builder. */
export function indexedIn(fields: readonly IndexedField[], collection: string): IsIndexed {
  const paths = new Set(fields.filter((f) => f.collection === collection).map((f) => f.path.join('.')));
  return (path) => paths.has(path.join('.'));
}
