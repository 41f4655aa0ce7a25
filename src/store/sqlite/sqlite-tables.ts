/**
 * SQLite's DDL: restock's own tables, by migration, and what each collection's table needs,
 * made on every start when missing (see ../sql/table-sync.ts, which runs both).
 */

import type { Migration, TableDdl } from '../sql/driver.js';
import { type Program, sql } from '../sql/program.js';
import { sharedMigrations } from '../sql/shared-migrations.js';
import { MAX_ID } from '../store.js';
import { syncChangeTriggers } from './change-triggers.js';
import { dropSearchIndex, syncSearchIndex } from './search-index.js';

/** What a create past the last id is refused with (see {@link MAX_ID}). */
export const IDS_EXHAUSTED = 'restock: ids exhausted';

/**
 * How a bulk create's copy holds the deleted record: its JSON is an array of stored
 * records, each `{"id":N,"data":"…",…}`, where the client's fields are one string with its
 * quotes escaped, so no field of theirs can look like this.
 */
const BULK_COPY_PATTERN = `'%{"id":' || old.id || ',%'`;

/** The table of one collection; AUTOINCREMENT, so that an id is never handed out again after a delete. */
function collectionTableSql(table: string): string {
  return `
    CREATE TABLE IF NOT EXISTS "${table}" (
      id         INTEGER PRIMARY KEY AUTOINCREMENT,
      data       TEXT    NOT NULL CHECK (json_valid(data)),
      version    INTEGER NOT NULL DEFAULT 1,
      created_at TEXT    NOT NULL,
      updated_at TEXT    NOT NULL
    ) STRICT`;
}

const shared = sharedMigrations('INTEGER', 'INTEGER PRIMARY KEY AUTOINCREMENT');

const migrations: readonly Migration[] = [
  {
    version: 1,
    // The tables of the collections of the time; every start now makes any that are missing.
    name: 'collections',
    *up(collections) {
      for (const table of collections) yield sql(collectionTableSql(table));
    },
  },
  {
    version: 2,
    name: 'idempotency keys',
    *up() {
      yield sql(`
        CREATE TABLE idempotency_keys (
          scope       TEXT    NOT NULL,
          key         TEXT    NOT NULL,
          fingerprint TEXT    NOT NULL,
          token       TEXT    NOT NULL,
          state       TEXT    NOT NULL CHECK (state IN ('running', 'done')),
          collection  TEXT,
          record      TEXT,
          claimed_at  INTEGER NOT NULL,
          created_at  INTEGER NOT NULL,
          PRIMARY KEY (scope, key)
        ) STRICT`);
      yield sql('CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)');
    },
  },
  {
    version: 3,
    name: 'idempotency keys by record',
    // Which record a key created, so that deleting the record can drop the copy the key keeps.
    *up() {
      yield sql('ALTER TABLE idempotency_keys ADD COLUMN record_id INTEGER');
      yield sql(`UPDATE idempotency_keys SET record_id = json_extract(record, '$.id') WHERE record IS NOT NULL`);
      yield sql('CREATE INDEX idempotency_keys_by_record ON idempotency_keys (collection, record_id)');
    },
  },
  { version: 4, ...shared.references },
  { version: 5, ...shared.changeLog },
  { version: 6, ...shared.accounts },
  {
    version: 7,
    name: 'search index without large records',
    // Made again from the records (syncCollections), now that a large record puts only the
    // mark in it (search-index.ts): its triggers take out what they put in.
    *up(collections) {
      for (const table of collections) yield* dropSearchIndex(table);
    },
  },
  { version: 8, ...shared.serverSecrets },
  { version: 9, ...shared.accountFlows },
  { version: 10, ...shared.fileReaper },
  { version: 11, ...shared.webhooks },
];

/** The table, search index and triggers of each collection, where missing. */
function* syncCollections(collections: readonly string[], searchIndex: boolean): Program<void> {
  for (const table of collections) {
    const t = `"${table}"`;
    yield sql(collectionTableSql(table));
    yield* searchIndex ? syncSearchIndex(table) : dropSearchIndex(table);
    // An id above 2^53 - 1 would reach clients as a neighbour's (JSON numbers are doubles).
    yield sql(`CREATE TRIGGER IF NOT EXISTS "${table}_ids_end" AFTER INSERT ON ${t} WHEN new.id > ${MAX_ID}
      BEGIN SELECT RAISE(ABORT, '${IDS_EXHAUSTED}'); END`);
    // A deleted record's copy kept by the Idempotency-Key that created it goes with it: the
    // key's record_id names it, or for a bulk create (no record_id) the copy holds it.
    yield* syncChangeTriggers(table);
    yield sql(`DROP TRIGGER IF EXISTS "${table}_forget_keys"`);
    yield sql(`CREATE TRIGGER IF NOT EXISTS "${table}_forget_copies" AFTER DELETE ON ${t} BEGIN
      UPDATE idempotency_keys SET record = NULL WHERE collection = '${table}' AND record_id = old.id;
      UPDATE idempotency_keys SET record = NULL, record_id = old.id WHERE collection = '${table}'
        AND record_id IS NULL AND record LIKE ${BULK_COPY_PATTERN};
    END`);
  }
}

export const sqliteTables: TableDdl = {
  migrations,
  syncCollections,
  listIndexes: (collections) => ({
    text: `SELECT tbl_name AS "table", name, sql LIKE 'CREATE UNIQUE %' AS "unique" FROM sqlite_master
           WHERE type = 'index' AND tbl_name IN (SELECT value FROM json_each(@p1))`,
    values: [JSON.stringify(collections)],
  }),
};
