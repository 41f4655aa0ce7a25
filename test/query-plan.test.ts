/**
 * A list is costly when the database's planner says it reads rows it does not return, on
 * both stores: an indexed filter walked in the index's order is an ordinary read, while a
 * scan, a sort no index gives, a filter an index leaves over, a search or an offset is
 * costly. Each verdict is kept for its query's shape and asked again once it is old, so
 * that a dropped index counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { parseListQuery, type RawListQuery } from '../src/records/list-query.js';
import { openStore, sqlitePathOf } from '../src/store/open-store.js';
import { indexedIn, indexName } from '../src/store/sql/index-sql.js';
import { planVerdicts, VERDICT_LIFE_MS } from '../src/store/sql/query-plan.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import type { ListQuery, Store } from '../src/store/store.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const config = defaultConfig();
const catalog = loadCatalog(config);
const STORE_OPTIONS = { poolSize: 2, connectTimeoutMs: 5000, statementTimeoutMs: 15000 };

/** A query string read as the list route reads it: its validator makes limit and offset numbers. */
function parse(text: string): ListQuery {
  const { limit = '100', offset, ...rest } = Object.fromEntries(new URLSearchParams(text));
  const raw = { ...rest, limit: Number(limit), ...(offset === undefined ? {} : { offset: Number(offset) }) };
  return parseListQuery(raw as RawListQuery, config.maxFieldNameLength).query;
}

/** Pages each walk one index in order and stop at their limit: products' price and sku, users' email are indexed. */
const ORDINARY = [
  'products?',
  'products?sort=-id',
  'products?sort=price',
  'products?price[gte]=10&price[lte]=20&sort=price',
  'products?price[gt]=10&sort=-price',
  'products?sku=SKU-42',
  'products?id[gt]=100',
  'users?email=u42@example.com',
  'users?sort=email&limit=5',
];

/** Pages whose plans read rows they do not return. */
const COSTLY = [
  'products?category=toys',
  'products?sort=name',
  'products?price[gte]=10&price[lte]=20',
  'products?price[gte]=10&category=toys&sort=price',
  'products?price[ne]=3&sort=price',
  'products?sku[startsWith]=SKU-1&sort=sku',
  'products?sku=SKU-42&sort=price',
  'products?price[in]=1,2,3',
  'products?sort=price,name',
  'products?q=kettle',
  'products?q=ke',
  'products?offset=10',
  'products?createdAt[gt]=2020-01-01T00:00:00.000Z',
];

for (const kind of STORE_KINDS) {
  describe(`costly lists, by the planner (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, catalog, STORE_OPTIONS);
      const n = Array.from({ length: 200 }, (_, i) => i);
      await store
        .collection('products')
        .createMany(n.map((i) => JSON.stringify({ sku: `SKU-${i}`, price: i % 50, name: `Kettle ${i}` })));
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    const verdict = (path: string) => {
      const [table, query] = path.split('?') as [string, string];
      return store.collection(table).isCostly(parse(query));
    };
    for (const path of ORDINARY) {
      it(`reads /${path} as an ordinary page`, async () => assert.equal(await verdict(path), false));
    }
    for (const path of COSTLY) {
      it(`counts /${path} as costly`, async () => assert.equal(await verdict(path), true));
    }

    it('asks the planner again once a verdict is old: a dropped index makes a filter costly', async () => {
      const products = catalog.get('products');
      let clock = 0;
      const engine = await openEngine(kind.name, db.url);
      try {
        const isCostly = planVerdicts(engine, 'products', indexedIn(products), () => clock);
        const ranged = parse('price[gte]=10&price[lte]=20&sort=price');
        assert.equal(await isCostly(ranged), false);
        await runSql(kind.name, db.url, `DROP INDEX "${indexName({ collection: 'products', path: ['price'] })}"`);
        assert.equal(await isCostly(ranged), false, 'kept while fresh');
        clock += VERDICT_LIFE_MS + 1;
        assert.equal(await isCostly(ranged), true, 'asked again');
      } finally {
        await engine.driver.close();
      }
    });
  });
}

/** An engine of its own on the same database, for a verdict cache the test drives. */
async function openEngine(kind: string, url: string) {
  if (kind === 'sqlite')
    return (await import('../src/store/sqlite/index.js')).open(sqlitePathOf(url) as string, STORE_OPTIONS);
  return (await import('../src/store/postgres/index.js')).open(url, STORE_OPTIONS);
}

/** Runs one statement on a connection of its own. */
async function runSql(kind: string, url: string, text: string): Promise<void> {
  if (kind === 'sqlite') {
    const db = new Database(sqlitePathOf(url) as string);
    db.exec(text);
    db.close();
    return;
  }
  const client = new pg.Client(url);
  await client.connect();
  await client.query(text);
  await client.end();
}
