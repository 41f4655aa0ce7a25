/**
 * Seeds a benchmark database directly, without the HTTP layer: the schema from restock's
 * own migrations and its default indexes, then the records generated inside SQLite by one INSERT … SELECT per
 * collection, in one transaction (a million records take seconds).
 */
import { renameSync, rmSync } from 'node:fs';
import { openConnection } from '../src/store/sqlite/connection.js';
import { CATALOG } from './schema.js';

export interface SeedCounts {
  users: number;
  products: number;
}

/** The fields of the i-th record of each kind, as SQLite expressions of `i` (the peers' seeds use them too). */
export const FIELDS: Record<keyof SeedCounts, string> = {
  users: `json_object(
    'name', 'User ' || i, 'email', 'user' || i || '@example.com', 'age', 18 + i % 60,
    'address', json_object('street', i || ' Main Street', 'city', 'Springfield', 'zip', printf('%05d', i % 100000)),
    'tags', json_array('customer', CASE i % 3 WHEN 0 THEN 'gold' WHEN 1 THEN 'silver' ELSE 'bronze' END))`,
  products: `json_object(
    'name', 'Product ' || i, 'sku', printf('SKU-%08d', i), 'price', (i % 10000) / 100.0 + 1,
    'stock', i % 500, 'category', CASE i % 4 WHEN 0 THEN 'kitchen' WHEN 1 THEN 'garden' WHEN 2 THEN 'toys' ELSE 'books' END,
    'description', 'A fine product, number ' || i || ', made to last and priced to sell.')`,
};

/** Writes a fresh database at `path` holding `counts` records of each kind. */
export function seedDatabase(path: string, counts: SeedCounts): void {
  const building = `${path}.building`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  const db = openConnection(building, CATALOG);
  const now = new Date().toISOString();
  db.transaction(() => {
    for (const [table, count] of Object.entries(counts) as [keyof SeedCounts, number][]) {
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO "${table}" (data, created_at, updated_at) SELECT ${FIELDS[table]}, ?, ? FROM n`,
      ).run(count, now, now);
    }
  }).immediate();
  // Everything into the main file, so that one file copy makes a run's database.
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  renameSync(building, path);
}
