/**
 * The tables the store keeps beside the collections' own, on both stores: the store's list
 * of them holds every table each engine really makes, and a schema file that would take one of
 * their names is refused at start in one line naming the file (before, the start failed on
 * the database's own "table changes already exists").
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { ConfigError, defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/open-store.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { STORE_TABLES } from '../src/store/store-tables.js';
import { catalogOf } from './helpers/catalog.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/** Every table of the database, by name. */
async function tablesOf(kind: string, db: TestDatabase): Promise<string[]> {
  if (kind === 'sqlite') {
    const file = db.url.slice('sqlite:'.length);
    if (!existsSync(file)) return [];
    const sqlite = new Database(file, { readonly: true });
    try {
      const rows = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
      return rows.map((row) => row.name);
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'",
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

function schemaFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-store-tables-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

for (const kind of STORE_KINDS) {
  describe(`the store's own tables (${kind.name})`, () => {
    it('hold every table the store makes beside the collections and their search indexes', async () => {
      const db = await kind.create();
      try {
        await (await openStore(db.url, catalogOf(['things']))).close();
        // SQLite's search index is a table of its own, with tables of its own (things_search_data, …),
        // and SQLite keeps tables of its own (sqlite_sequence), which no name can take.
        const own = (await tablesOf(kind.name, db)).filter(
          (name) => name !== 'things' && !name.startsWith('things_search') && !name.startsWith('sqlite_'),
        );
        assert.ok(own.length >= 6, own.join(', '));
        assert.deepEqual(
          own.filter((name) => !STORE_TABLES.includes(name)),
          [],
          'a table of the store missing from STORE_TABLES',
        );
      } finally {
        await db.drop();
      }
    });

    it('are names no schema file may take: one line names the file', async () => {
      const db = await kind.create();
      try {
        for (const [file, name] of [
          ['changes.schema.json', 'changes'],
          ['idempotency_keys.json', 'idempotency_keys'],
          ['things_search.schema.json', 'things_search'],
        ] as const) {
          const schemas = schemaFolder({ [file]: '{"x-singular": "thing"}' });
          await assert.rejects(
            buildApp({
              config: defaultConfig({ databaseUrl: db.url, schemas, maxEventLoopDelay: 0 }),
              logStream: false,
            }),
            (error: Error) =>
              error instanceof ConfigError &&
              error.message === `SCHEMAS: ${join(schemas, file)}: "${name}" names a table restock keeps for itself`,
          );
        }
        assert.deepEqual(await tablesOf(kind.name, db), [], 'nothing was made');
      } finally {
        await db.drop();
      }
    });
  });
}
