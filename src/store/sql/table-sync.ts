/**
 * The tables on start, for every database, in one transaction under the migration lock:
 * restock's own tables migrated, then the collections' tables made, then their indexes,
 * unique indexes and references brought in line with the configuration. Tables follow the collections, as
 * indexes do: a collection added to an existing database gets its table on the next start.
 */
import type { IndexedField, Reference, TableSync, UniqueField } from '../store.js';
import { createChangeCounters } from './change-log-sql.js';
import type { SqlDialect } from './dialect.js';
import type { TableDdl } from './driver.js';
import { createIndexStatements, indexName, refuseOversizedValues } from './index-sql.js';
import { type Program, sql, statement } from './program.js';
import { syncReferences } from './reference-sync.js';
import { CHANGE_LOG_MIGRATION } from './shared-migrations.js';
import {
  createUniqueIndexSql,
  type DuplicateRow,
  dropIndexSql,
  type ExistingIndex,
  selectDuplicatesSql,
  staleUniqueIndexes,
  uniqueIndexFailure,
  uniqueIndexName,
} from './unique-sql.js';

export interface TableTarget {
  collections: readonly string[];
  indexes: readonly IndexedField[];
  unique: readonly UniqueField[];
  references: readonly Reference[];
  /** Whether the collections keep a search index (made when missing, dropped when not wanted). */
  searchIndex: boolean;
  /** The most bytes a value of an indexed or unique field may hold: more stops the start. */
  maxIndexedValueBytes: number;
}

/** Brings the tables in line with `target`; says which migrations it applied and tables it made. */
export function* syncTables(
  dialect: SqlDialect,
  ddl: TableDdl,
  target: TableTarget,
  isUniqueFailure: (error: unknown) => boolean,
): Program<TableSync> {
  const { before, applied } = yield* migrate(dialect, ddl, target.collections);
  yield* ddl.syncCollections(target.collections, target.searchIndex);
  const counted = yield* createChangeCounters(dialect, target.collections);
  const changeLog = ddl.migrations.find((migration) => migration.name === CHANGE_LOG_MIGRATION)?.version;
  const logBefore = before.length === 0 || (changeLog !== undefined && before.includes(changeLog));
  const made = new Set((yield ddl.listIndexes(target.collections)).rows.map((row) => String(row.name)));
  const newlyIndexed = [
    ...target.indexes.filter((field) => !made.has(indexName(field))),
    ...target.unique.filter((field) => !made.has(uniqueIndexName(field))),
  ];
  yield* refuseOversizedValues(dialect, newlyIndexed, target.maxIndexedValueBytes);
  for (const index of createIndexStatements(dialect, target.indexes)) yield sql(index);
  yield* syncUniqueIndexes(dialect, ddl, target, isUniqueFailure);
  yield* syncReferences(dialect, target.references);
  return { before, applied, added: logBefore ? counted : undefined };
}

/** Applies each migration not yet recorded in `schema_migrations`, in order. */
function* migrate(
  dialect: SqlDialect,
  ddl: TableDdl,
  collections: readonly string[],
): Program<{ before: number[]; applied: number[] }> {
  yield sql(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const before = (yield sql('SELECT version FROM schema_migrations')).rows.map((row) => Number(row.version));
  const done = new Set(before);
  const record = statement<'version' | 'name' | 'at'>(
    dialect.placeholder,
    (p) =>
      `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${p('version')}, ${p('name')}, ${p('at')})`,
  );
  const applied: number[] = [];
  for (const migration of ddl.migrations) {
    if (done.has(migration.version)) continue;
    yield* migration.up(collections);
    yield record({ version: migration.version, name: migration.name, at: new Date().toISOString() });
    applied.push(migration.version);
  }
  return { before, applied };
}

/**
 * Makes the unique indexes of the fields `unique` declares, and drops those restock made for
 * fields it no longer declares. Records that already share a value stop the start, named.
 */
function* syncUniqueIndexes(
  dialect: SqlDialect,
  ddl: TableDdl,
  { collections, unique }: TableTarget,
  isUniqueFailure: (error: unknown) => boolean,
): Program<void> {
  const existing = (yield ddl.listIndexes(collections)).rows.map((row) => ({
    ...(row as unknown as ExistingIndex),
    unique: Boolean(row.unique),
  }));
  for (const name of staleUniqueIndexes(existing, unique)) yield sql(dropIndexSql(name));
  for (const field of unique) {
    // A failed statement aborts a PostgreSQL transaction: the savepoint keeps it usable
    // for reading the duplicates that made it fail.
    yield sql('SAVEPOINT unique_index');
    try {
      yield sql(createUniqueIndexSql(dialect, field));
    } catch (error) {
      if (!isUniqueFailure(error)) throw error;
      yield sql('ROLLBACK TO SAVEPOINT unique_index');
      const found = yield sql(selectDuplicatesSql(dialect, field, 3));
      throw uniqueIndexFailure(field, found.rows as unknown as DuplicateRow[], error);
    }
    yield sql('RELEASE SAVEPOINT unique_index');
  }
}
