/**
 * Versioned schema changes for SQLite, applied in order on start. Each runs once,
 * inside the same transaction that records it in `schema_migrations`.
 */
import type { Database } from 'better-sqlite3';
import { syncSearchIndex } from './search-index.js';

export interface SqliteMigration {
  version: number;
  name: string;
  up(db: Database, collections: readonly string[]): void;
}

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

export const migrations: readonly SqliteMigration[] = [
  {
    version: 1,
    // The tables of the collections of the time; every start now makes any that are missing.
    name: 'collections',
    up(db, collections) {
      for (const table of collections) {
        db.exec(collectionTableSql(table));
        syncSearchIndex(db, table);
      }
    },
  },
  {
    version: 2,
    name: 'idempotency keys',
    up(db) {
      db.exec(`
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
        ) STRICT;
        CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);`);
    },
  },
  {
    version: 3,
    name: 'idempotency keys by record',
    // Which record a key created, so that deleting the record can drop the copy the key keeps.
    up(db) {
      db.exec(`
        ALTER TABLE idempotency_keys ADD COLUMN record_id INTEGER;
        UPDATE idempotency_keys SET record_id = json_extract(record, '$.id') WHERE record IS NOT NULL;
        CREATE INDEX idempotency_keys_by_record ON idempotency_keys (collection, record_id);`);
    },
  },
];

/**
 * Brings the database up to the newest version, makes the table and search index of every
 * collection that has none (a collection added since the database was made), then runs `extra` (idempotent
 * statements: the configured indexes). `BEGIN IMMEDIATE` takes the write lock first, so two
 * processes starting on one file migrate once, one after the other. A table whose
 * collection is no longer served stays, with its records.
 */
export function migrate(db: Database, collections: readonly string[], extra: readonly string[] = []): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const applied: number[] = [];
  const run = db.transaction(() => {
    const done = new Set(
      db
        .prepare('SELECT version FROM schema_migrations')
        .pluck()
        .all()
        .map((v) => Number(v)),
    );
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      migration.up(db, collections);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
      applied.push(migration.version);
    }
    for (const table of collections) {
      db.exec(collectionTableSql(table));
      syncSearchIndex(db, table);
    }
    for (const statement of extra) db.exec(statement);
  });
  run.immediate();
  return applied;
}
