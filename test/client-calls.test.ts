/**
 * The client's calls beyond the basics, against a real restock on a port, on both stores:
 * one record with some fields, pages with their cursor and total, `ifMatch` from a listed
 * record or a copy (and a stale one refused), and a signal or a timeout ending a call to a
 * server that never answers.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createClient, etagOf, ProblemError } from '../packages/client/src/index.js';
import { useApp } from './helpers/app.js';
import { silentServer } from './helpers/silent-server.js';
import { STORE_KINDS } from './helpers/stores.js';

type Shop = { products: { name: string; price?: number; tags?: string[] } };

for (const kind of STORE_KINDS) {
  describe(`the client's calls (${kind.name})`, () => {
    const ctx = useApp(kind);
    let origin: string;
    before(async () => {
      origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    });

    it('reads one record with only some fields, and pages with their cursor and, when asked, the total', async () => {
      const products = createClient<Shop>({ baseUrl: origin }).collection('products');
      const made = await products.create(['a', 'b', 'c'].map((name) => ({ name, price: 1, tags: ['paged'] })));
      const picked = await products.get((made[0] as (typeof made)[number]).id, { fields: ['name'] });
      assert.deepEqual(Object.keys(picked).sort(), ['id', 'name']);
      const query = { filter: { tags: { contains: 'paged' } }, sort: 'name', limit: 2 } as const;
      const first = await products.page({ ...query, count: true });
      assert.equal(first.total, 3);
      assert.equal(typeof first.cursor, 'string');
      const second = await products.page({ ...query, cursor: first.cursor });
      assert.deepEqual(
        [...first.records, ...second.records].map((p) => p.name),
        ['a', 'b', 'c'],
      );
      assert.equal(second.cursor, undefined);
      assert.equal(second.total, undefined, 'not counted unless asked');
      const pages = [];
      for await (const page of products.list({ ...query, count: true }).pages()) pages.push(page);
      assert.deepEqual(
        pages.map((page) => [page.records.length, page.total]),
        [
          [2, 3],
          [1, undefined],
        ],
      );
      assert.deepEqual(
        (await products.list(query).all()).map((p) => p.name),
        ['a', 'b', 'c'],
      );
    });

    it('takes ifMatch from a listed record or a copy, and refuses a stale one with 412, writing nothing', async () => {
      const products = createClient<Shop>({ baseUrl: origin }).collection('products');
      const made = await products.create({ name: 'versioned', price: 1, tags: ['ifmatch'] });
      const [listed] = await products.list({ filter: { tags: { contains: 'ifmatch' } } }).all();
      assert.ok(listed && etagOf(listed) === undefined, 'a list gives no ETag');
      const changed = await products.update(listed, { price: 2 }, { ifMatch: listed });
      const copy = { ...changed, price: 99 };
      assert.equal((await products.update(copy, { price: 3 }, { ifMatch: copy })).price, 3);
      for (const stale of [listed, copy, { ...made }]) {
        await assert.rejects(
          products.update(stale, { price: 4 }, { ifMatch: stale }),
          (error) => error instanceof ProblemError && error.status === 412 && error.kind === 'precondition-failed',
        );
      }
      assert.equal((await products.get(made.id)).price, 3);
      await assert.rejects(products.delete(made, { ifMatch: { id: made.id } }), TypeError);
    });

    it('stops a call when its signal aborts or its timeout passes, however long the server takes', async () => {
      const silent = await silentServer();
      try {
        const products = createClient<Shop>({ baseUrl: silent.url, retries: 5 }).collection('products');
        await assert.rejects(products.get(1, { timeout: 50 }), (error: Error) => error.name === 'TimeoutError');
        const defaults = createClient<Shop>({ baseUrl: silent.url, timeout: 50 }).collection('products');
        await assert.rejects(defaults.page(), (error: Error) => error.name === 'TimeoutError');
        const stop = new AbortController();
        const connection = silent.connected();
        const reading = products.list({ signal: stop.signal }).all();
        await connection;
        stop.abort(new Error('the user left'));
        await assert.rejects(reading, /the user left/);
        await assert.rejects(products.create({ name: 'never' }, { signal: stop.signal }), /the user left/);
      } finally {
        await silent.close();
      }
    });
  });
}
