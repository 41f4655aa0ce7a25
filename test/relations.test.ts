/**
 * References between declared collections (`x-ref`), on both stores: writes naming missing
 * records are refused in their own transaction (also against deletes racing them), deletes
 * do what each reference says, `expand=` embeds records with one read per reference per
 * page, and references declared or dropped later follow on the next start.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { checkRecords } from '../src/commands/check.js';
import { ConfigError, defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import { openStore, storeOptionsOf } from '../src/store/open-store.js';
import type { Records, Store } from '../src/store/store.js';
import { body, create, JSON_HEADERS, problem } from './helpers/app.js';
import { OPEN_SHOP_SCHEMAS } from './helpers/open-shop.js';
import { type ContractRecorder, checkAgainstDocument, itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const SHOP_SCHEMAS = OPEN_SHOP_SCHEMAS;

/** The example store (users, products, orders) and reviews, whose references cascade and set null. */
function schemaFolder(extra: Record<string, object> = REVIEWS): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-relations-'));
  for (const name of readdirSync(SHOP_SCHEMAS)) copyFileSync(join(SHOP_SCHEMAS, name), join(dir, name));
  for (const [name, schema] of Object.entries(extra)) writeFileSync(join(dir, name), JSON.stringify(schema));
  return dir;
}

const REVIEWS = {
  'reviews.schema.json': {
    type: 'object',
    properties: {
      productId: { type: 'integer', 'x-ref': 'products', 'x-on-delete': 'cascade' },
      authorId: { type: ['integer', 'null'], 'x-ref': 'users', 'x-on-delete': 'set-null' },
      orderId: { type: 'integer', 'x-ref': 'orders', 'x-on-delete': 'cascade' },
      stars: { type: 'integer' },
    },
  },
};

type Json = Record<string, unknown> & { id: number };

for (const kind of STORE_KINDS) {
  describe(`references between collections (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let store: Store;
    /** Calls of each collection's reads, by method and collection, since `calls.clear()`. */
    const calls = new Map<string, number>();
    const schemas = schemaFolder();
    const checked: { contract?: ContractRecorder } = {};

    before(async () => {
      db = await kind.create();
      const config = defaultConfig({ databaseUrl: db.url, schemas, maxEventLoopDelay: 0, rateLimitMax: 0 });
      const opened = await openStore(db.url, loadCatalog(config), storeOptionsOf(config));
      // The real store, its reads counted: expand must not read once per record.
      store = {
        ...opened,
        collection: (of) => counted(typeof of === 'string' ? of : of.plural, opened.collection(of)),
      };
      app = await buildApp({ config, store, logStream: false });
      checked.contract = checkAgainstDocument(app);
      await app.ready();
      await checked.contract.load();
    });
    after(async () => {
      await app?.close();
      await store?.close();
      await db?.drop();
    });

    function counted(name: string, collection: Records): Records {
      const counting =
        <A extends unknown[], R>(method: string, read: (...args: A) => R) =>
        (...args: A): R => {
          calls.set(`${method} ${name}`, (calls.get(`${method} ${name}`) ?? 0) + 1);
          return read(...args);
        };
      return {
        ...collection,
        list: counting('list', (query) => collection.list(query)),
        getMany: counting('getMany', (ids) => collection.getMany(ids)),
        get: counting('get', (id) => collection.get(id)),
      };
    }

    const send = (method: string, url: string, payload?: unknown) =>
      app.inject({
        method: method as 'GET',
        url,
        headers: JSON_HEADERS,
        ...(payload !== undefined && { payload: payload as object }),
      });
    const count = async (plural: string) =>
      (body<Json[]>(await send('GET', `/${plural}/?limit=1000`)) as Json[]).length;
    let seq = 0;
    const user = () => create(app, 'user', { name: 'Ada', email: `ada${++seq}@example.com` });
    const product = () => create(app, 'product', { name: 'Teapot', sku: `T${++seq}`, price: 19.5 });
    const order = (userId: number, ...productIds: number[]) =>
      create(app, 'order', {
        userId,
        items: productIds.map((productId) => ({ productId, quantity: 1, price: 2 })),
        status: 'placed',
      });

    it('refuses a write naming a missing record with 422 and each pointer, and writes nothing', async () => {
      const [u, p] = [await user(), await product()];
      const before = await count('orders');
      const refused = problem(
        await send('POST', '/order/', {
          userId: u.id + 1000,
          items: [
            { productId: p.id, quantity: 1 },
            { productId: p.id + 2000, quantity: 1 },
          ],
          status: 'placed',
        }),
        422,
        'missing-reference',
      );
      assert.deepEqual(
        refused.errors?.map((e) => e.pointer),
        ['/items/1/productId', '/userId'],
      );
      const bulk = problem(
        await send('POST', '/order/', [
          { userId: u.id, items: [{ productId: p.id, quantity: 1 }], status: 'placed' },
          { userId: u.id, items: [{ productId: p.id + 1000, quantity: 1 }], status: 'placed' },
        ]),
        422,
        'missing-reference',
      );
      assert.deepEqual(
        bulk.errors?.map((e) => e.pointer),
        ['/1/items/0/productId'],
      );
      const o = await order(u.id, p.id);
      problem(await send('PUT', `/order/${o.id}/`, { userId: u.id + 1000 }), 422, 'missing-reference');
      assert.equal(body<Json>(await send('GET', `/order/${o.id}/`)).userId, u.id);
      assert.equal(await count('orders'), before + 1);
    });

    it('refuses to delete a record others refer to, naming them, until they let go', async () => {
      const [u, p, q] = [await user(), await product(), await product()];
      const o = await order(u.id, p.id, q.id);
      const refused = problem(await send('DELETE', `/product/${q.id}/`), 409, 'record-referenced') as unknown as {
        referrers: unknown[];
      };
      assert.deepEqual(refused.referrers, [{ collection: 'orders', id: o.id, field: 'items.productId' }]);
      assert.equal((await send('GET', `/product/${q.id}/`)).statusCode, 200);
      // The order no longer names q: q may go; p may not.
      assert.equal(
        (await send('PUT', `/order/${o.id}/`, { items: [{ productId: p.id, quantity: 2 }] })).statusCode,
        200,
      );
      assert.equal((await send('DELETE', `/product/${q.id}/`)).statusCode, 200);
      problem(await send('DELETE', `/product/${p.id}/`), 409, 'record-referenced');
      problem(await send('DELETE', `/user/${u.id}/`), 409, 'record-referenced');
      assert.equal((await send('DELETE', `/order/${o.id}/`)).statusCode, 200);
      assert.equal((await send('DELETE', `/user/${u.id}/`)).statusCode, 200);
      assert.equal((await send('DELETE', `/product/${p.id}/`)).statusCode, 200);
    });

    it('cascades and sets null as references say, in the same transaction', async () => {
      const [u, p] = [await user(), await product()];
      const o = await order(u.id, p.id);
      const review = await create(app, 'review', { productId: p.id, authorId: u.id, orderId: o.id, stars: 5 });
      const other = await create(app, 'review', { productId: (await product()).id, authorId: u.id, stars: 4 });
      // Deleting the user is refused by the order (restrict), and nothing changes.
      problem(await send('DELETE', `/user/${u.id}/`), 409, 'record-referenced');
      assert.equal(body<Json>(await send('GET', `/review/${other.id}/`)).authorId, u.id);
      // Deleting the order cascades to its review; then the user may go, and the other review keeps null.
      assert.equal((await send('DELETE', `/order/${o.id}/`)).statusCode, 200);
      assert.equal((await send('GET', `/review/${review.id}/`)).statusCode, 404);
      assert.equal((await send('DELETE', `/user/${u.id}/`)).statusCode, 200);
      const nulled = await send('GET', `/review/${other.id}/`);
      assert.equal(body<Json>(nulled).authorId, null);
      assert.match(String(nulled.headers.etag), /-2"$/, 'set-null is a new version');
      // Deleting a product cascades to its reviews.
      assert.equal((await send('DELETE', `/product/${other.productId}/`)).statusCode, 200);
      assert.equal((await send('GET', `/review/${other.id}/`)).statusCode, 404);
    });

    it('embeds referenced records with expand, on one record and on pages, with one read per reference', async () => {
      const u = await user();
      const products = [await product(), await product(), await product()];
      const ids = products.map((p) => p.id);
      const orders = [];
      for (let i = 0; i < 20; i++) orders.push(await order(u.id, ...ids));
      const one = body<Json & { expand: { userId: Json; 'items.productId': Json[] } }>(
        await send('GET', `/order/${orders[0]?.id}/?expand=userId,items.productId`),
      );
      assert.equal(one.expand.userId.email, u.email);
      assert.deepEqual(
        one.expand['items.productId'].map((p) => p.id),
        ids,
      );
      calls.clear();
      const page = await send('GET', `/orders/?userId=${u.id}&expand=userId,items.productId&fields=status`);
      const records = body<(Json & { expand: { userId: Json; 'items.productId': Json[] } })[]>(page);
      assert.equal(records.length, 20);
      for (const record of records) {
        assert.deepEqual(Object.keys(record), ['id', 'status', 'expand']);
        assert.equal(record.expand.userId.id, u.id);
        assert.equal(record.expand['items.productId'].length, 3);
      }
      assert.deepEqual(Object.fromEntries(calls), { 'list orders': 1, 'getMany users': 1, 'getMany products': 1 });
    });

    it('follows references two deep, no deeper, and names what it cannot follow', async () => {
      const u = await user();
      const p = await product();
      const o = await order(u.id, p.id);
      const review = await create(app, 'review', { productId: p.id, orderId: o.id, stars: 3 });
      const got = body<Json & { expand: { orderId: Json & { expand: { userId: Json } } } }>(
        await send('GET', `/review/${review.id}/?expand=orderId.userId`),
      );
      assert.equal(got.expand.orderId.id, o.id);
      assert.equal(got.expand.orderId.expand.userId.id, u.id);
      for (const expand of ['nope', 'orderId.userId.name', 'stars', 'orderId.items']) {
        const refused = problem(await send('GET', `/reviews/?expand=${expand}`), 400, 'invalid-query');
        assert.equal(refused.errors?.[0]?.pointer, '/expand');
      }
    });

    it('finds records by reference with a plain filter, through an index made for it', async () => {
      const declared = loadCatalog(defaultConfig({ schemas })).get('orders');
      assert.ok(declared.indexes.some((i) => i.collection === 'orders' && i.path.join('.') === 'userId'));
      const [u, v, p] = [await user(), await user(), await product()];
      await order(u.id, p.id);
      const mine = await order(v.id, p.id);
      assert.deepEqual(
        body<Json[]>(await send('GET', `/orders/?userId=${v.id}`)).map((r) => r.id),
        [mine.id],
      );
    });

    it('keeps references whole when creates race deletes of the records they name', async () => {
      const users = [];
      for (let i = 0; i < 40; i++) users.push(await user());
      const p = await product();
      const outcomes = await Promise.all(
        users.flatMap((u) => [
          send('POST', '/order/', { userId: u.id, items: [{ productId: p.id, quantity: 1 }], status: 'placed' }),
          send('DELETE', `/user/${u.id}/`),
        ]),
      );
      for (const [i, response] of outcomes.entries()) {
        assert.ok([200, 201, 409, 422].includes(response.statusCode), `${i}: ${response.statusCode} ${response.body}`);
      }
      // Every order placed names a user that still exists, and every user deleted has no order.
      for (const u of users) {
        const orders = body<Json[]>(await send('GET', `/orders/?userId=${u.id}`));
        const exists = (await send('GET', `/user/${u.id}/`)).statusCode === 200;
        if (!exists) assert.equal(orders.length, 0, `user ${u.id} was deleted under an order`);
      }
    });

    itKeptTheDocument(checked);
  });

  describe(`references declared or dropped later (${kind.name})`, () => {
    it('fills in a reference declared over existing records, and forgets one no longer declared', async () => {
      const db = await kind.create();
      const unlinked = { ...REVIEWS['reviews.schema.json'], properties: { productId: { type: 'integer' } } };
      const start = async (reviews: object) => {
        const config = defaultConfig({
          databaseUrl: db.url,
          schemas: schemaFolder({ 'reviews.schema.json': reviews }),
          maxEventLoopDelay: 0,
        });
        return buildApp({ config, logStream: false });
      };
      try {
        let app = await start(unlinked);
        const p = await create(app, 'product', { name: 'Teapot', sku: 'T1' });
        await create(app, 'review', { productId: p.id });
        const dangling = await create(app, 'review', { productId: p.id + 100 });
        await app.close();

        app = await start(REVIEWS['reviews.schema.json']);
        // restock check names the record that names a missing product.
        const folder = schemaFolder();
        const catalog = loadCatalog(defaultConfig({ schemas: folder }));
        const store = await openStore(db.url, catalog, storeOptionsOf(defaultConfig()));
        const lines: string[] = [];
        try {
          const summary = await checkRecords(store, catalog, (line) => lines.push(line));
          assert.equal(summary.dangling, 1);
        } finally {
          await store.close();
        }
        assert.deepEqual(lines, [`reviews/${dangling.id} /productId: names no record of products (id ${p.id + 100})`]);
        assert.equal((await app.inject({ method: 'DELETE', url: `/review/${dangling.id}/` })).statusCode, 200);
        // The review made before productId was a reference now holds the product: deleting it cascades.
        assert.equal((await app.inject({ method: 'DELETE', url: `/product/${p.id}/` })).statusCode, 200);
        assert.deepEqual(body(await app.inject({ method: 'GET', url: '/reviews/' })), []);
        const q = await create(app, 'product', { name: 'Cup', sku: 'C1' });
        const r = await create(app, 'review', { productId: q.id });
        await app.close();

        app = await start(unlinked);
        // No longer a reference: the product goes and the review stays, naming it.
        assert.equal((await app.inject({ method: 'DELETE', url: `/product/${q.id}/` })).statusCode, 200);
        assert.equal(body(await app.inject({ method: 'GET', url: `/review/${r.id}/` })).productId, q.id);
        await app.close();
      } finally {
        await db.drop();
      }
    });
  });
}

describe('declaring references', () => {
  const refuse = (reviews: object) =>
    assert.throws(
      () => loadCatalog(defaultConfig({ schemas: schemaFolder({ 'reviews.schema.json': reviews }) })),
      ConfigError,
    );
  it('refuses a reference to a collection that is not declared', () => {
    refuse({ type: 'object', properties: { shopId: { type: 'integer', 'x-ref': 'shops' } } });
  });
  it('refuses set-null on an array of ids, and an unknown x-on-delete', () => {
    refuse({
      type: 'object',
      properties: { tags: { type: 'array', items: { 'x-ref': 'products', 'x-on-delete': 'set-null' } } },
    });
    refuse({ type: 'object', properties: { p: { type: 'integer', 'x-ref': 'products', 'x-on-delete': 'explode' } } });
  });
  it('refuses set-null on a field whose type does not take null: the nulled record would break its schema', () => {
    for (const field of [
      { type: 'integer' },
      { type: ['integer', 'null'], enum: [1, 2] },
      { 'x-ref': 'products', anyOf: [{ type: 'integer' }] },
    ]) {
      refuse({
        type: 'object',
        required: ['ownerId'],
        properties: { ownerId: { 'x-ref': 'products', 'x-on-delete': 'set-null', ...field } },
      });
    }
  });
});
