/**
 * The configured indexes are used: the SQL the stores build for a filter or a sort on an
 * indexed field is planned through its expression index on both databases (shown with
 * EXPLAIN on a real database holding enough records for the planner to care).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { defaultConfig } from '../src/config.js';
import { openStore } from '../src/store/open-store.js';
import { postgresDialect } from '../src/store/postgres/postgres-dialect.js';
import { indexedIn, selectPage } from '../src/store/sql/list-sql.js';
import { sqliteDialect } from '../src/store/sqlite/sqlite-dialect.js';
import type { ListQuery, Store } from '../src/store/store.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const { indexes } = defaultConfig();
const price = { path: ['price'] };

const QUERIES: [string, string, ListQuery, string][] = [
  [
    'products',
    'sort=price',
    { where: [], sort: [{ field: price, descending: false }], limit: 101 },
    'products_by_price',
  ],
  [
    'products',
    'sort=-price after a cursor',
    { where: [], sort: [{ field: price, descending: true }], limit: 101, after: [1, 500, '', 10] },
    'products_by_price',
  ],
  [
    'products',
    'price=19.5',
    { where: [{ field: price, op: 'eq', value: 19.5 }], sort: [], limit: 101 },
    'products_by_price',
  ],
  [
    'products',
    'price[gte]=990&sort=price',
    { where: [{ field: price, op: 'gte', value: 990 }], sort: [{ field: price, descending: false }], limit: 101 },
    'products_by_price',
  ],
  [
    'products',
    'sku=SKU-42',
    { where: [{ field: { path: ['sku'] }, op: 'eq', value: 'SKU-42' }], sort: [], limit: 101 },
    'products_by_sku',
  ],
  [
    'users',
    'email=u42@example.com',
    { where: [{ field: { path: ['email'] }, op: 'eq', value: 'u42@example.com' }], sort: [], limit: 101 },
    'users_by_email',
  ],
];

for (const kind of STORE_KINDS) {
  describe(`indexed fields (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, ['users', 'products'], {
        indexes,
        unique: [],
        poolSize: 2,
        connectTimeoutMs: 5000,
        statementTimeoutMs: 15000,
      });
      const n = Array.from({ length: 5000 }, (_, i) => i);
      await store.collection('products').createMany(n.map((i) => JSON.stringify({ sku: `SKU-${i}`, price: i % 1000 })));
      await store.collection('users').createMany(n.map((i) => JSON.stringify({ email: `u${i}@example.com` })));
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    for (const [table, name, query, index] of QUERIES) {
      it(`plans ${table}?${name} through ${index}`, async () => {
        const plan = await explain(kind.name, db.url, table, query);
        assert.match(plan, new RegExp(index), plan);
        // Never a scan of the table. A sorted first page reads the index in order (limit
        // rows of it); a page after a cursor seeks it (on SQLite as a few ranges, each
        // sorted within its limit).
        assert.doesNotMatch(plan, new RegExp(`SCAN ${table}(?! USING)|Seq Scan`), `no table scan: ${plan}`);
        if (query.sort.length > 0 && !query.after) {
          assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|\bSort\b/, `no sort step: ${plan}`);
        }
      });
    }
  });
}

async function explain(kind: string, url: string, table: string, query: ListQuery): Promise<string> {
  const columns = 'id, data';
  if (kind === 'sqlite') {
    const sql = selectPage(sqliteDialect, indexedIn(indexes, table), table, columns, query);
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      db.exec('ANALYZE');
    } catch {
      // read-only: the planner works without statistics too
    }
    const named = Object.fromEntries(sql.values.map((v, i) => [`p${i + 1}`, v]));
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql.text}`).all(named) as { detail: string }[];
    db.close();
    return rows.map((r) => r.detail).join('\n');
  }
  const sql = selectPage(postgresDialect, indexedIn(indexes, table), table, columns, query);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`ANALYZE "${table}"`);
    const { rows } = await client.query(`EXPLAIN ${sql.text}`, sql.values);
    return rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.end();
  }
}
