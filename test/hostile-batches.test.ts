/**
 * Batches and large records sent as an attacker would, each beside a bystander whose reads
 * must go on being served, on both stores over real HTTP with the example shop:
 *
 * - a batch of 1 MB whose references copy one large value into every operation (each
 *   `"$0.blob"`) is refused before it runs, and ten at once are too;
 * - a reference to a large record the batch reads is counted once it is known, before the
 *   operation naming it is written;
 * - a password is never a reference, and `$$` in it means `$` as in every other field;
 * - a record of 1 MB of random text is written and found by `q=`, as are records past the
 *   search index's bounds after changes and deletes.
 *
 * First, without a store: the bytes a batch's bodies would write are counted exactly.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { jsonBytes } from '../src/core/json-bytes.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import { openStore, storeOptionsOf } from '../src/store/open-store.js';
import { MAX_INDEXED_TEXT, MAX_INDEXED_TRIGRAMS } from '../src/store/sqlite/search-index.js';
import type { Store } from '../src/store/store.js';
import { call, failedAt, json, postBatch, problemOf, resultsOf } from './helpers/batch.js';
import { authorization } from './helpers/keys.js';
import { shopWithOpenSchemas } from './helpers/open-shop.js';
import { shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/** Text with as many distinct trigrams as its length allows, so that it costs a text index the most. */
const randomText = (length: number) =>
  randomBytes(Math.ceil((length * 3) / 4))
    .toString('base64')
    .slice(0, length);

describe('the bytes a batch would write', () => {
  it('are counted as JSON.stringify would write them, without writing them', () => {
    const agrees = (value: unknown) => jsonBytes(value) === Buffer.byteLength(JSON.stringify(value));
    fc.assert(fc.property(fc.jsonValue(), agrees), { numRuns: 2000 });
    // Quotes, backslashes, control characters, lone surrogates and characters past U+FFFF.
    fc.assert(fc.property(fc.string({ unit: 'binary' }), agrees), { numRuns: 2000 });
  });
});

for (const kind of STORE_KINDS) {
  describe(`hostile batches and large records (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    let app: FastifyInstance;
    let origin = '';

    before(async () => {
      db = await kind.create();
      // Products open (users too): large records go in a `description` the example's products do not declare.
      const config = defaultConfig({
        ...shopSettings({ schemas: shopWithOpenSchemas() }),
        databaseUrl: db.url,
        maxEventLoopDelay: 0,
        rateLimitMax: 0,
      });
      store = await openStore(db.url, loadCatalog(config), storeOptionsOf(config));
      app = await buildApp({ config, store, logStream: false });
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await app?.close();
      await store?.close();
      await db?.drop();
    });

    const write = authorization('write');
    const counts = async () => ({
      users: await store.collection('users').count({ where: [] }),
      products: await store.collection('products').count({ where: [] }),
      changes: (await store.changes.bounds('users'))?.last,
    });

    /**
     * Runs `attack` while a bystander reads a page of products, one read after another, until
     * the attack is answered; every read must be served. Returns the attack's result.
     */
    async function besideBystander<T>(attack: () => Promise<T>): Promise<{ result: T; reads: number }> {
      let done = false;
      let reads = 0;
      const bystander = (async () => {
        while (!done) {
          const page = await call(origin, 'GET', '/products/?limit=10', { headers: write });
          assert.equal(page.status, 200, page.text);
          reads++;
        }
      })();
      try {
        return { result: await attack(), reads };
      } finally {
        done = true;
        await bystander;
        reads = Math.max(reads, 1);
      }
    }

    let serial = 0;
    /** A batch of about 1 MB: a sign-up carrying `blob`, then 99 sign-ups each naming it. */
    const copyingBatch = (blob: string) => {
      const run = ++serial;
      return [
        { method: 'POST', path: '/user/', body: { name: 'Eve', email: `eve-${run}@example.com`, blob } },
        ...Array.from({ length: 99 }, (_, i) => ({
          method: 'POST',
          path: '/user/',
          body: { name: `Eve ${i}`, email: `eve-${run}-${i}@example.com`, blob: '$0.blob' },
        })),
      ];
    };

    it('refuses a batch whose references would copy a large value into every operation, before it runs', async () => {
      const before = await counts();
      const operations = copyingBatch(randomText(740_000));
      const { result } = await besideBystander(() => postBatch(origin, operations));
      const problem = problemOf(result, 413, 'batch-too-large');
      failedAt(problem, 1, { method: 'POST', path: '/user/' }, '/1/body');
      assert.deepEqual(await counts(), before, 'nothing was written');
    });

    it('refuses ten such batches sent at once, writing nothing, while the bystander is served', async () => {
      const before = await counts();
      const blob = randomText(740_000);
      const { result } = await besideBystander(() =>
        Promise.all(Array.from({ length: 10 }, () => postBatch(origin, copyingBatch(blob)))),
      );
      for (const answer of result) problemOf(answer, 413, 'batch-too-large');
      assert.deepEqual(await counts(), before, 'nothing was written');
    });

    it('counts a reference to a record the batch reads once it is read, before the operation naming it is written', async () => {
      const description = randomText(600_000);
      const made = await call(origin, 'POST', '/product/', { body: { name: 'Big', description }, headers: write });
      assert.equal(made.status, 201, made.text.slice(0, 300));
      const { id } = json<{ id: number }>(made);
      const copy = { method: 'POST', path: '/product/', body: { name: 'Copy', description: '$0.description' } };
      const read = { method: 'GET', path: `/product/${id}/` };

      // One copy fits in what one request may carry: it is written, whole.
      const one = resultsOf(await postBatch(origin, [read, copy], write), 2);
      assert.equal(one[1]?.body.description, description);

      const before = await counts();
      const { result } = await besideBystander(() => postBatch(origin, [read, copy, copy], write));
      failedAt(problemOf(result, 413, 'batch-too-large'), 2, copy, '/2/body');
      assert.deepEqual(await counts(), before, 'nothing of the batch was kept');
    });

    it('refuses a password that names an earlier result, and reads $$ in a password as $', async () => {
      const before = await counts();
      const named = [
        { method: 'POST', path: '/user/', body: { name: 'Kim', email: 'kim@example.com' } },
        { method: 'POST', path: '/user/', body: { name: 'Lee', email: 'lee@example.com', password: '$0.email' } },
      ];
      const refused = problemOf(await postBatch(origin, named), 422, 'invalid-batch');
      failedAt(refused, 1, { method: 'POST', path: '/user/' }, '/1/body/password');
      assert.deepEqual(await counts(), before, 'nothing was written');

      const escaped = [
        { method: 'POST', path: '/user/', body: { name: 'Kim', email: 'kim@example.com' } },
        { method: 'POST', path: '/user/', body: { name: 'Lee', email: 'lee@example.com', password: '$$0.secretpw' } },
      ];
      resultsOf(await postBatch(origin, escaped), 2);
      const signIn = (password: string) =>
        call(origin, 'POST', '/users/auth/', { body: { email: 'lee@example.com', password } });
      assert.equal((await signIn('$0.secretpw')).status, 200, 'the password is the text with one $ less');
      assert.equal((await signIn('$$0.secretpw')).status, 401);
    });

    it('writes a record of 1 MB of random text beside the bystander, and q= finds it', async () => {
      const text = randomText(1_000_000);
      const { result: made } = await besideBystander(() =>
        call(origin, 'POST', '/product/', { body: { name: 'Noise', description: text }, headers: write }),
      );
      assert.equal(made.status, 201, made.text.slice(0, 300));
      const { id } = json<{ id: number }>(made);
      const found = async (needle: string) => {
        const page = await call(origin, 'GET', `/products/?q=${encodeURIComponent(needle)}&fields=id`, {
          headers: write,
        });
        assert.equal(page.status, 200, page.text);
        return json<{ id: number }[]>(page).map((record) => record.id);
      };
      assert.ok((await found(text.slice(500_000, 500_012))).includes(id), 'a needle from its middle');
      assert.ok((await found(text.slice(-9))).includes(id), 'a needle from its end');
      assert.ok(!(await found(`${text.slice(0, 8)}~`)).includes(id), 'a needle it does not hold');
    });

    it('finds records past either bound of the search index, after creates, changes and deletes', async () => {
      const many = randomText(MAX_INDEXED_TRIGRAMS * 2);
      const long = 'plain words again and again '.repeat(Math.ceil(MAX_INDEXED_TEXT / 20));
      const create = async (description: string) => {
        const made = await call(origin, 'POST', '/product/', { body: { name: 'Edge', description }, headers: write });
        assert.equal(made.status, 201, made.text.slice(0, 300));
        return json<{ id: number }>(made).id;
      };
      const search = async (needle: string) => {
        const page = await call(origin, 'GET', `/products/?q=${encodeURIComponent(needle)}&fields=id&limit=1000`, {
          headers: write,
        });
        assert.equal(page.status, 200, page.text);
        return json<{ id: number }[]>(page).map((record) => record.id);
      };
      const change = async (id: number, description: string) => {
        const changed = await call(origin, 'PATCH', `/product/${id}/`, { body: { description }, headers: write });
        assert.equal(changed.status, 200, changed.text.slice(0, 300));
      };

      const manyId = await create(many);
      const longId = await create(`${long} zebra crossing`);
      assert.deepEqual(await search(many.slice(100, 110)), [manyId]);
      assert.deepEqual(await search('zebra crossing'), [longId]);

      // Small again: found by its new text through the index, and no longer by its old.
      await change(manyId, 'a small teapot of tin');
      assert.deepEqual(await search('teapot of tin'), [manyId]);
      assert.deepEqual(await search(many.slice(100, 110)), []);
      // Large again, then gone.
      await change(manyId, `${many} ocelot`);
      assert.deepEqual(await search('teapot of tin'), []);
      assert.deepEqual(await search(`${many.slice(-4)} ocelot`), [manyId]);
      const removed = await call(origin, 'DELETE', `/product/${manyId}/`, { headers: write });
      assert.equal(removed.status, 200);
      assert.deepEqual(await search('ocelot'), []);
    });
  });
}
