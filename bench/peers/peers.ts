/**
 * The benchmark's peers (`npm run bench -- --peers`): their packages, installed on demand
 * into bench/peers/node_modules from bench/peers/package.json (never the project's own
 * dependencies), and their seeds, holding the same records as bench/seed.ts makes for
 * restock: the Express app's SQLite file (a column per field) and json-server's db.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from '../../src/store/sqlite/sqlite-library.js';
import { FIELDS, type SeedCounts } from '../seed.js';

const PEERS = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(PEERS, '..', '..');

/** Installs bench/peers/package.json's dependencies when one is missing or not at its pinned version. */
export function ensurePeers(): void {
  const { dependencies } = JSON.parse(readFileSync(join(PEERS, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const installed = (name: string) => {
    const file = join(PEERS, 'node_modules', name, 'package.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
  };
  if (Object.entries(dependencies).every(([name, version]) => installed(name) === version)) return;
  process.stderr.write('bench: installing the peers (bench/peers/package.json) with npm\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', 'bench/peers'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

/** `n(i)`, 1 to the parameter, and `r(i, f)`: the i-th record's fields as JSON, as bench/seed.ts makes them. */
const records = (table: keyof SeedCounts) =>
  `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?),
   r(i, f) AS (SELECT i, ${FIELDS[table]} FROM n)`;

const COLUMNS: Record<keyof SeedCounts, string[]> = {
  users: ['name', 'email', 'age', 'address', 'tags'],
  products: ['name', 'sku', 'price', 'stock', 'category', 'description'],
};

/**
 * Writes a fresh database for the Express app at `path`: its schema (bench/peers/schema.sql)
 * and the records of bench/seed.ts, ids 1 to n, one INSERT … SELECT per table.
 */
export function seedPeerDatabase(path: string, counts: SeedCounts): void {
  const building = `${path}.building`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  const db = new Database(building);
  db.pragma('journal_mode = WAL');
  db.exec(readFileSync(join(PEERS, 'schema.sql'), 'utf8'));
  const now = new Date().toISOString();
  db.transaction(() => {
    for (const [table, count] of Object.entries(counts) as [keyof SeedCounts, number][]) {
      const columns = COLUMNS[table];
      // json_extract answers an object or array as its JSON text: address and tags.
      const values = columns.map((column) => `json_extract(f, '$.${column}')`).join(', ');
      db.prepare(
        `${records(table)}
         INSERT INTO ${table} (id, ${columns.join(', ')}, created_at, updated_at) SELECT i, ${values}, ?, ? FROM r`,
      ).run(count, now, now);
    }
  }).immediate();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  renameSync(building, path);
}

/**
 * Writes json-server's db.json at `path`: `{"users": […], "products": […]}`, the records of
 * bench/seed.ts with their ids as strings (as json-server's README writes them; it turns
 * numbers into strings when it loads) and createdAt / updatedAt as plain fields.
 */
export function seedJsonServerData(path: string, counts: SeedCounts): void {
  const db = new Database(':memory:');
  const now = new Date().toISOString();
  const collections = (Object.entries(counts) as [keyof SeedCounts, number][]).map(([table, count]) => {
    const { text } = db
      .prepare(
        `${records(table)}
         SELECT json_group_array(json_set(json_patch(json_object('id', CAST(i AS TEXT)), f),
           '$.createdAt', ?, '$.updatedAt', ?)) AS text FROM r`,
      )
      .get(count, now, now) as { text: string };
    return `${JSON.stringify(table)}:${text}`;
  });
  db.close();
  writeFileSync(path, `{${collections.join(',')}}\n`);
}
