/**
 * The typed client (src/client/) against a real restock listening on a port, on both stores:
 * every operation direct and tunnelled, the wire methods it really sent, pages followed by
 * Link, ETags for ifMatch, problems as ProblemError, and a create retried after a lost
 * answer that still makes one record. (test/client.browser.test.ts runs it in Chromium.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import {
  type ChangeEvent,
  createClient,
  etagOf,
  OVERRIDE_HEADER,
  ProblemError,
  where,
} from '../packages/client/src/index.js';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { WRITE_KEY, withKeys } from './helpers/keys.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';

interface Product {
  name: string;
  price?: number;
  tags?: string[];
}
type Shop = { products: Product };

/** A fetch that records each request's wire method and override header, then sends it. */
function recordingFetch(sent: string[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const override = headers.get(OVERRIDE_HEADER);
    sent.push(override ? `${init?.method} as ${override}` : String(init?.method));
    return fetch(input, init);
  };
}

for (const kind of STORE_KINDS) {
  describe(`the client (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let origin: string;
    before(async () => {
      db = await kind.create();
      app = await buildApp({ config: defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0 }), logStream: false });
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    for (const tunnel of [undefined, 'post', 'get'] as const) {
      it(`creates, reads, lists, changes and deletes${tunnel ? `, tunnelled through ${tunnel}` : ''}`, async () => {
        const sent: string[] = [];
        const shop = createClient<Shop>({ baseUrl: origin, fetch: recordingFetch(sent), ...(tunnel && { tunnel }) });
        const products = shop.collection('products');
        const tag = `t${tunnel ?? 'direct'}`;

        const made = [];
        for (const price of [5, 15, 25, 35, 45])
          made.push(await products.create({ name: `p${price}`, price, tags: [tag] }));
        assert.deepEqual(
          made.map((p) => p.price),
          [5, 15, 25, 35, 45],
        );
        const first = made[0] as (typeof made)[number];
        assert.ok(first.id >= 1 && typeof first.createdAt === 'string');

        const read = await products.get(first.id);
        assert.equal(read.name, 'p5');
        assert.match(etagOf(read) ?? '', /^"/);

        const listed = [];
        const query = { filter: { price: { gte: 15 }, tags: { contains: tag } }, sort: '-price' as const, limit: 2 };
        for await (const product of products.list(query)) listed.push(product.price);
        assert.deepEqual(listed, [45, 35, 25, 15], 'three pages followed through Link');
        const expression = `(price > 40 || price < 10) && '${tag}' in tags`;
        const either = await products.page({ filter: expression, sort: 'price' });
        assert.deepEqual(
          either.records.map((p) => p.price),
          [5, 45],
          'a string filter is sent as ?filter=',
        );

        const changed = await products.update(read, { price: 6, tags: null }, { ifMatch: read });
        assert.equal(changed.price, 6);
        assert.equal('tags' in changed, false, 'null removes a field (merge patch)');
        await assert.rejects(
          products.update(read, { price: 7 }, { ifMatch: read }),
          (error) => error instanceof ProblemError && error.status === 412 && error.kind === 'precondition-failed',
        );

        const gone = await products.delete(changed, { ifMatch: changed });
        assert.equal(gone.price, 6);
        await assert.rejects(
          products.get(first.id),
          (error) => error instanceof ProblemError && error.status === 404 && error.problem.instance !== undefined,
        );

        const wire = new Set(sent.map((line) => line.split(' ')[0]));
        if (tunnel === undefined) {
          assert.ok(wire.has('PUT') && wire.has('DELETE'), [...wire].join(' '));
        } else {
          assert.deepEqual([...wire].sort(), ['GET', 'POST'], sent.join(', '));
          assert.ok(sent.includes('POST as PUT'), sent.join(', '));
          assert.ok(sent.includes(tunnel === 'get' ? 'GET as DELETE' : 'POST as DELETE'), sent.join(', '));
        }
      });
    }

    it('retries a create whose answer was lost, and restock makes one record', async () => {
      let lost = 0;
      const losing: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method === 'POST' && lost++ === 0) throw new TypeError('fetch failed: the answer was lost');
        return response;
      };
      const products = createClient<Shop>({ baseUrl: origin, fetch: losing }).collection('products');
      const made = await products.create({ name: 'once', tags: ['retried'] });
      assert.equal(lost, 2, 'sent twice');
      const all = [];
      for await (const product of products.list({ filter: { tags: { contains: 'retried' } } })) all.push(product);
      assert.deepEqual(
        all.map((p) => p.id),
        [made.id],
      );
    });

    it('creates many records in one request, all or none', async () => {
      const products = createClient<Shop>({ baseUrl: origin }).collection('products');
      const made = await products.createMany([
        { name: 'one', tags: ['many'] },
        { name: 'two', tags: ['many'] },
      ]);
      assert.deepEqual(
        made.map((p) => p.name),
        ['one', 'two'],
      );
      await assert.rejects(
        products.createMany([{ name: 'three' }, 7 as unknown as Product]),
        (error) => error instanceof ProblemError && error.problem.errors?.[0]?.pointer === '/1',
      );
    });

    it('follows changes with subscribe, filtered, and resumes a broken connection with none missed or repeated', async () => {
      const proxy = await startTcpProxy(Number(new URL(origin).port));
      const direct = createClient<Shop & { products: { batch?: string } }>({ baseUrl: origin }).collection('products');
      const viaProxy = createClient<Shop & { products: { batch?: string } }>({
        baseUrl: `http://127.0.0.1:${proxy.port}`,
      }).collection('products');
      try {
        const one = await direct.create({ name: 'one', batch: 'followed', price: 5 });
        const two = await direct.create({ name: 'two', batch: 'followed', price: 20 });
        await direct.create({ name: 'elsewhere', batch: 'other' });
        const received: ChangeEvent<Product>[] = [];
        const stop = new AbortController();
        const following = (async () => {
          for await (const change of viaProxy.subscribe({
            since: 0,
            filter: { batch: 'followed' },
            signal: stop.signal,
          }))
            received.push(change);
        })();
        await until(() => received.length === 2);
        await proxy.cut();
        const three = await direct.create({ name: 'three', batch: 'followed' });
        await proxy.restore();
        const changed = await direct.update(one, { price: 6 });
        const gone = await direct.delete(two);
        await until(() => received.length === 5);
        stop.abort();
        await following;
        assert.deepEqual(
          received.map((change) => change.type === 'reset' || [change.type, change.record]),
          [
            ['created', one],
            ['created', two],
            ['created', three],
            ['updated', changed],
            ['deleted', gone],
          ].map(([type, record]) => [type, JSON.parse(JSON.stringify(record))]),
        );
        const ids = received.map((change) => (change.type === 'reset' ? 0 : change.id));
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
          'in order',
        );
      } finally {
        await proxy.close();
      }
    });

    it('follows and lists by a filter expression, as a string and built with where(), alike', async () => {
      type Batched = Product & { batch?: string };
      const products = createClient<{ products: Batched }>({ baseUrl: origin }).collection('products');
      const w = where<Batched>();
      const built = w.and({ batch: 'expr' }, w.or({ price: { gt: 40 } }, w.not({ price: { gte: 10 } })));
      assert.equal(built, '(batch == "expr" && (price > 40 || !(price >= 10)))');
      const written = "batch = 'expr' && (price > 40 || !(price >= 10))";
      const stop = new AbortController();
      const seen = new Map<string, string[]>([
        [written, []],
        [built, []],
      ]);
      // From the log's start (since 0), so that neither feed can miss a change made below.
      const following = [...seen].map(async ([filter, into]) => {
        for await (const change of products.subscribe({ since: 0, filter, signal: stop.signal }))
          if (change.type !== 'reset') into.push(`${change.type} ${change.record.name}`);
      });
      const cheap = await products.create({ name: 'cheap', batch: 'expr', price: 5 });
      await products.create({ name: 'middling', batch: 'expr', price: 20 });
      const dear = await products.create({ name: 'dear', batch: 'expr', price: 45 });
      await products.create({ name: 'unpriced', batch: 'expr' });
      await products.create({ name: 'elsewhere', batch: 'other', price: 50 });
      await products.update(dear, { price: 30 });
      await products.update(cheap, { price: 4 });
      const expected = ['created cheap', 'created dear', 'created unpriced', 'deleted dear', 'updated cheap'];
      await until(() => [...seen.values()].every((events) => events.length >= expected.length));
      stop.abort();
      await Promise.all(following);
      for (const [filter, events] of seen) assert.deepEqual(events, expected, filter);

      const names = async (filter: string) =>
        (await products.page({ filter, sort: 'name' })).records.map((p) => p.name);
      assert.deepEqual(await names(built), ['cheap', 'unpriced']);
      assert.deepEqual(await names(written), await names(built));
    });

    it('throws ProblemError with the problem document restock sent', async () => {
      const products = createClient({ baseUrl: origin }).collection('products');
      await assert.rejects(products.page({ limit: 0 }), (error) => {
        assert.ok(error instanceof ProblemError);
        assert.equal(error.status, 400);
        assert.equal(error.kind, 'invalid-query');
        assert.match(error.message, /limit/);
        return true;
      });
      await assert.rejects(
        createClient({ baseUrl: origin }).collection('nothing').page(),
        (error) => error instanceof ProblemError && error.kind === 'not-found',
      );
    });
  });
}

describe('the client with API keys', () => {
  const kind = STORE_KINDS[0] as (typeof STORE_KINDS)[number];
  let db: TestDatabase;
  let app: FastifyInstance;
  let origin: string;
  before(async () => {
    db = await kind.create();
    app = await buildApp({
      config: defaultConfig({ maxEventLoopDelay: 0, ...withKeys(), databaseUrl: db.url }),
      logStream: false,
    });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  it('sends its key, and without one gets the 401 as a ProblemError', async () => {
    const keyed = createClient({ baseUrl: origin, apiKey: WRITE_KEY, tunnel: 'post' }).collection('users');
    const ada = await keyed.create({ name: 'Ada' });
    assert.equal((await keyed.delete(ada.id)).name, 'Ada');
    await assert.rejects(
      createClient({ baseUrl: origin }).collection('users').page(),
      (error) => error instanceof ProblemError && error.status === 401,
    );
  });
});

/** Resolves once `done()` holds, checking every 20 ms; fails after 30 s rather than hang. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 20) {
    if (waited > 30_000) throw new Error('waited 30 s in vain');
    await sleep(20);
  }
}
