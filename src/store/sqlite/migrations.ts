/**
 * Versioned schema changes for SQLite, applied in order on start. Each runs once,
 * inside the same transaction that records it in `schema_migrations`.
 */
import type { Database } from 'better-sqlite3';

export interface SqliteMigration {
  version: number;
  name: string;
  up(db: Database, collections: readonly string[]): void;
}

export const migrations: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'collections',
    up(db, collections) {
      for (const table of collections) {
        // AUTOINCREMENT, so that an id is never handed out again after a delete.
        db.exec(`
          CREATE TABLE IF NOT EXISTS "${table}" (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            data       TEXT    NOT NULL CHECK (json_valid(data)),
            version    INTEGER NOT NULL DEFAULT 1,
            created_at TEXT    NOT NULL,
            updated_at TEXT    NOT NULL
          ) STRICT`);
      }
    },
  },
];

/**
 * Brings the database up to the newest version. `BEGIN IMMEDIATE` takes the write lock
 * first, so two processes starting on one file migrate once, one after the other.
 */
export function migrate(db: Database, collections: readonly string[]): number[] {
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
  });
  run.immediate();
  return applied;
}
