/**
 * Batches (`POST /batch/`) on both stores, over real HTTP, with the example shop and its
 * rules: operations on several collections kept all or none, results named by reference,
 * each operation's own problem under its index, the change feeds getting a batch's events
 * in order or not at all, the bounds, Idempotency-Key, and a batch never doing what its
 * operations alone could not. Ends with two clients racing for the last item in stock, and
 * two batches taking the same rows in opposite orders (a deadlock PostgreSQL breaks, and
 * the driver runs the batch it ended again).
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Config, defaultConfig, loadConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import { openStore, storeOptionsOf } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import {
  type Answer,
  call,
  failedAt,
  json,
  type Operation,
  pointedAt,
  postBatch,
  problemOf,
  resultsOf,
} from './helpers/batch.js';
import { openEventStream, type StreamEvent } from './helpers/event-stream.js';
import { API_KEYS, UNKNOWN_KEY } from './helpers/keys.js';
import { shopWithOpenSchemas } from './helpers/open-shop.js';
import { type ContractRecorder, checkAgainstDocument, itKeptTheDocument } from './helpers/openapi-validator.js';
import { headersOf, openShop, type Sender, type Shop, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const COLLECTIONS = ['users', 'orders', 'products'] as const;
type Plural = (typeof COLLECTIONS)[number];
type Tally = Record<Plural, number>;

/**
 * The example shop and one collection more, notes, without rules: as on any such collection
 * where API keys are set, only a key may use it, so that a request without one is a 401.
 */
function shopWithNotes(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-batch-'));
  // Products open (users too): the limits' tests put a field of any size and depth in one.
  cpSync(shopWithOpenSchemas(), dir, { recursive: true });
  // Strict, so that its schema in the document's list of bodies a batch takes admits no other collection's.
  const notes = {
    type: 'object',
    required: ['text'],
    additionalProperties: false,
    properties: { text: { type: 'string' } },
  };
  writeFileSync(join(dir, 'notes.schema.json'), JSON.stringify(notes));
  return dir;
}

const recordOf = (event: StreamEvent | undefined) =>
  JSON.parse(event?.data ?? 'null') as Record<string, unknown> & { id: number };

for (const kind of STORE_KINDS) {
  describe(`batches (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    let app: FastifyInstance;
    let config: Config;
    let origin = '';
    let shop: Shop;
    const checked: { contract?: ContractRecorder } = {};
    const schemas = shopWithNotes();

    before(async () => {
      db = await kind.create();
      config = defaultConfig({
        ...shopSettings({ schemas }),
        databaseUrl: db.url,
        maxEventLoopDelay: 0,
        rateLimitMax: 0,
      });
      // A store of the suite's own, to read the change log's bounds and count records directly.
      store = await openStore(db.url, loadCatalog(config), storeOptionsOf(config));
      app = await buildApp({ config, store, logStream: false });
      checked.contract = checkAgainstDocument(app);
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
      await checked.contract.load();
      shop = await openShop(app);
    });
    after(async () => {
      await app?.close();
      await store?.close();
      await db?.drop();
      rmSync(schemas, { recursive: true, force: true });
    });

    const batch = (operations: unknown, sender: Sender = 'write', headers: Record<string, string> = {}) =>
      postBatch(origin, operations, { ...headersOf(shop, sender), ...headers });
    /** The same request as an operation, sent alone. */
    const alone = (sender: Sender, { method, path, body, ifMatch }: Operation) =>
      call(origin, method, path, {
        ...(body !== undefined && { body }),
        headers: { ...headersOf(shop, sender), ...(ifMatch !== undefined && { 'if-match': ifMatch }) },
      });
    const tally = async (): Promise<Tally> => {
      const counted = await Promise.all(COLLECTIONS.map((name) => store.collection(name).count({ where: [] })));
      return Object.fromEntries(COLLECTIONS.map((name, i) => [name, counted[i]])) as Tally;
    };
    /** The number of each collection's last change: a known point to read the feeds from. */
    const lastChanges = async (): Promise<Tally> => {
      const bounds = await Promise.all(COLLECTIONS.map((name) => store.changes.bounds(name)));
      return Object.fromEntries(COLLECTIONS.map((name, i) => [name, bounds[i]?.last])) as Tally;
    };
    /** Asserts nothing was written since `before`: no record more or less, no change logged. */
    const nothingWritten = async (before: { counts: Tally; changes: Tally }) => {
      assert.deepEqual(await tally(), before.counts, 'no record was written');
      assert.deepEqual(await lastChanges(), before.changes, 'no change was logged');
    };
    const snapshot = async () => ({ counts: await tally(), changes: await lastChanges() });
    const feedSince = (plural: Plural, since: number) =>
      openEventStream(`${origin}/${plural}/events/?since=${since}`, headersOf(shop, 'write'));

    let serial = 0;
    const email = () => `batch-${++serial}@example.com`;
    const sku = () => `SKU-${kind.name}-${++serial}`;
    /** A product made with the write key, and its ETag. */
    const product = async (fields: Record<string, unknown> = {}) => {
      const made = await alone('write', { method: 'POST', path: '/product/', body: { name: 'Mug', ...fields } });
      assert.equal(made.status, 201, made.text);
      return { id: json<{ id: number }>(made).id, etag: String(made.headers.get('etag')) };
    };
    const read = async (path: string) => {
      const answer = await alone('write', { method: 'GET', path });
      return {
        status: answer.status,
        etag: answer.headers.get('etag'),
        body: answer.status === 200 ? json(answer) : {},
      };
    };
    const orderOf = (userId: number | string, productIds: (number | string)[]) => ({
      userId,
      items: productIds.map((productId) => ({ productId, quantity: 1 })),
      status: 'placed',
    });

    it('runs a create, a create naming it, and two conditional merges: 201 201 200 200, events in batch order', async () => {
      const [mugs, pots] = [await product({ stock: 10 }), await product({ stock: 20 })];
      const since = await lastChanges();
      const userEmail = email();
      const operations: Operation[] = [
        { method: 'POST', path: '/user/', body: { name: 'Grace', email: userEmail } },
        { method: 'POST', path: '/orders/', body: orderOf('$0.id', [mugs.id, pots.id]) },
        { method: 'PATCH', path: `/product/${mugs.id}/`, body: { stock: 9 }, ifMatch: mugs.etag },
        { method: 'PUT', path: `/product/${pots.id}`, body: { stock: 19 }, ifMatch: pots.etag },
      ];
      const results = resultsOf(await batch(operations), 4);
      assert.deepEqual(
        results.map((r) => r.status),
        [201, 201, 200, 200],
      );
      const [user, order, mug, pot] = results.map((r) => r.body);
      assert.equal(user?.email, userEmail);
      assert.equal(user?.password, undefined);
      assert.equal(order?.userId, user?.id, "the reference became the new user's id");
      assert.deepEqual([mug?.id, mug?.stock, pot?.id, pot?.stock], [mugs.id, 9, pots.id, 19]);
      assert.deepEqual(
        results.map((r) => r.headers.location),
        [`/user/${user?.id}/`, `/order/${order?.id}/`, undefined, undefined],
      );
      // Each ETag and record is the one the record has now, as a read alone gives it.
      for (const [i, path] of [
        `/user/${user?.id}/`,
        `/order/${order?.id}/`,
        `/product/${mugs.id}/`,
        `/product/${pots.id}/`,
      ].entries()) {
        const now = await read(path);
        assert.equal(now.status, 200);
        assert.equal(results[i]?.headers.etag, now.etag, path);
        assert.deepEqual(results[i]?.body, now.body, path);
      }

      const feeds = await Promise.all(COLLECTIONS.map((name) => feedSince(name, since[name])));
      try {
        const [users, orders, products] = await Promise.all([feeds[0]?.take(1), feeds[1]?.take(1), feeds[2]?.take(2)]);
        assert.deepEqual(
          users?.map((e) => [e.event, Number(e.id), recordOf(e).id]),
          [['created', since.users + 1, user?.id]],
        );
        assert.deepEqual(
          orders?.map((e) => [e.event, Number(e.id), recordOf(e).id, recordOf(e).userId]),
          [['created', since.orders + 1, order?.id, user?.id]],
        );
        assert.deepEqual(
          products?.map((e) => [e.event, Number(e.id), recordOf(e).id, recordOf(e).stock]),
          [
            ['updated', since.products + 1, mugs.id, 9],
            ['updated', since.products + 2, pots.id, 19],
          ],
        );
      } finally {
        await Promise.all(feeds.map((feed) => feed.close()));
      }
    });

    it('refuses the whole batch when one ifMatch is stale: 412 naming operation 3, nothing written, no events', async () => {
      const [mugs, pots] = [await product({ stock: 10 }), await product({ stock: 20 })];
      const changed = await alone('write', { method: 'PATCH', path: `/product/${pots.id}/`, body: { name: 'Pot' } });
      assert.equal(changed.status, 200);
      const before = await snapshot();
      const userEmail = email();
      const stale: Operation = {
        method: 'PATCH',
        path: `/product/${pots.id}/`,
        body: { stock: 19 },
        ifMatch: pots.etag,
      };
      const refused = problemOf(
        await batch([
          { method: 'POST', path: '/user/', body: { name: 'Grace', email: userEmail } },
          { method: 'POST', path: '/order/', body: orderOf('$0.id', [mugs.id]) },
          { method: 'PATCH', path: `/product/${mugs.id}/`, body: { stock: 9 }, ifMatch: mugs.etag },
          stale,
        ]),
        412,
        'precondition-failed',
      );
      failedAt(refused, 3, stale, '/3/ifMatch');
      await nothingWritten(before);
      assert.deepEqual(
        [(await read(`/product/${mugs.id}/`)).body.stock, (await read(`/product/${pots.id}/`)).body.stock],
        [10, 20],
      );
      const found = await alone('write', { method: 'GET', path: `/users/?email=${encodeURIComponent(userEmail)}` });
      assert.deepEqual(json(found), [], 'no user has the email');

      // The next event each feed delivers after the known point is one written after the batch.
      const feeds = await Promise.all(COLLECTIONS.map((name) => feedSince(name, before.changes[name])));
      try {
        const later = await Promise.all([
          alone('write', { method: 'POST', path: '/user/', body: { name: 'After', email: email() } }),
          alone('write', { method: 'POST', path: '/order/', body: orderOf(shop.people.ada.id, [mugs.id]) }),
          alone('write', { method: 'PATCH', path: `/product/${pots.id}/`, body: { stock: 21 } }),
        ]);
        const events = await Promise.all(feeds.map((feed) => feed.take(1)));
        for (const [i, name] of COLLECTIONS.entries()) {
          const [event] = events[i] ?? [];
          assert.equal(recordOf(event).id, json<{ id: number }>(later[i] as Answer).id, name);
          assert.equal(Number(event?.id), before.changes[name] + 1, `${name}: the first change after the batch`);
        }
        assert.equal(recordOf(events[2]?.[0]).stock, 21);
      } finally {
        await Promise.all(feeds.map((feed) => feed.close()));
      }
    });

    it('refuses 100 creates when the 51st breaks the schema: 422 under /50/body/, none created', async () => {
      const before = await snapshot();
      const operations: Operation[] = Array.from({ length: 100 }, (_, i) => ({
        method: 'POST',
        path: '/product/',
        body: i === 50 ? { name: 'Broken', price: -1 } : { name: `Bulk ${i}`, price: 1.5 },
      }));
      const refused = problemOf(await batch(operations), 422, 'schema-violation');
      failedAt(refused, 50, { method: 'POST', path: '/product/' }, '/50/body/', { prefix: true });
      assert.ok(
        refused.errors?.every((e) => e.pointer.startsWith('/50/body/')),
        JSON.stringify(refused.errors),
      );
      await nothingWritten(before);
      // The same 100 with the 51st fixed all run.
      const fixed = operations.map((op, i) => (i === 50 ? { ...op, body: { name: 'Fixed' } } : op));
      const results = resultsOf(await batch(fixed), 100);
      assert.ok(results.every((r) => r.status === 201));
      assert.equal((await tally()).products, before.counts.products + 100);
    });

    describe('references', () => {
      it('refuses one to a later operation or to itself before anything runs', async () => {
        const before = await snapshot();
        const later = problemOf(
          await batch([
            { method: 'POST', path: '/order/', body: orderOf('$1.id', [shop.productId]) },
            { method: 'POST', path: '/user/', body: { name: 'Later', email: email() } },
          ]),
          422,
          'invalid-batch',
        );
        pointedAt(later, '/0/body/userId');
        const itself = problemOf(
          await batch([
            { method: 'GET', path: `/product/${shop.productId}/` },
            { method: 'POST', path: '/product/', body: { name: 'Self', sku: '$1.name' } },
          ]),
          422,
          'invalid-batch',
        );
        pointedAt(itself, '/1/body/sku');
        const inPath = problemOf(
          await batch([{ method: 'PATCH', path: '/product/$0.id/', body: { stock: 1 } }]),
          422,
          'invalid-batch',
        );
        pointedAt(inPath, '/0/path');
        await nothingWritten(before);
      });

      it("refuses one to a field the record's schema forbids before anything runs", async () => {
        const before = await snapshot();
        // Operation 0 alone would be a 404: the batch is refused before it would run.
        const refused = problemOf(
          await batch([
            { method: 'GET', path: '/order/999999/' },
            { method: 'POST', path: '/user/', body: { name: '$0.nope', email: email() } },
          ]),
          422,
          'invalid-batch',
        );
        pointedAt(refused, '/1/body/name');
        assert.doesNotMatch(refused.detail, /^Operation 0/);
        await nothingWritten(before);
      });

      it('fills one in a path, and keeps $$0.id as the text $0.id', async () => {
        const results = resultsOf(
          await batch([
            { method: 'POST', path: '/product/', body: { name: '$$0.id', stock: 3 } },
            { method: 'PUT', path: '/product/$0.id/', body: { stock: 2, sku: '$$0.id' } },
            { method: 'GET', path: '/products/$0.id' },
            { method: 'POST', path: '/product/', body: { name: 'Copy', sku: '$$1.sku', price: '$2.stock' } },
          ]),
          4,
        );
        const [made, merged, got, copy] = results.map((r) => r.body);
        assert.equal(made?.name, '$0.id');
        assert.deepEqual([merged?.id, merged?.stock, merged?.sku], [made?.id, 2, '$0.id']);
        assert.equal(results[1]?.headers.etag, `"${made?.id}-2"`);
        assert.deepEqual(got, merged);
        assert.deepEqual([copy?.sku, copy?.price], ['$1.sku', 2]);
        assert.deepEqual(
          results.map((r) => r.status),
          [201, 200, 200, 201],
        );
      });

      it('refuses one whose field is missing when the batch runs: 422, nothing kept', async () => {
        const before = await snapshot();
        const copy: Operation = { method: 'POST', path: '/product/', body: { name: 'Copy', stock: '$0.stock' } };
        const refused = problemOf(
          await batch([{ method: 'POST', path: '/product/', body: { name: 'No stock' } }, copy]),
          422,
          'invalid-batch',
        );
        failedAt(refused, 1, copy, '/1/body/stock');
        await nothingWritten(before);
      });
    });

    describe('bounds and malformed batches', () => {
      const get = (): Operation => ({ method: 'GET', path: `/product/${shop.productId}/` });

      it('takes 100 operations and refuses 101: 413 too-many-operations, nothing run', async () => {
        resultsOf(await batch(Array.from({ length: 100 }, get)), 100);
        const before = await snapshot();
        const creates = Array.from({ length: 101 }, (_, i) => ({
          method: 'POST',
          path: '/product/',
          body: { name: `n${i}` },
        }));
        const refused = problemOf(await batch(creates), 413, 'too-many-operations');
        assert.match(refused.detail, /101 operations, more than the 100/);
        await nothingWritten(before);
      });

      it('stops a batch whose answer would pass MAX_PAGE_BYTES at the operation that passes it, nothing kept', async () => {
        const { config: small } = loadConfig([], {
          DATABASE_URL: db.url,
          SCHEMAS: schemas,
          API_KEYS,
          MAX_PAGE_BYTES: '4000',
          MAX_EVENT_LOOP_DELAY: '0',
          RATE_LIMIT_MAX: '0',
        });
        const other = await buildApp({ config: small, logStream: false });
        try {
          const { id } = await product({ description: 'x'.repeat(1000) });
          const before = await snapshot();
          const send = (operations: unknown[]) =>
            other.inject({
              method: 'POST',
              url: '/batch/',
              headers: { 'content-type': 'application/json', ...headersOf(shop, 'write') },
              payload: JSON.stringify(operations),
            });
          // Each answer holds the 1,000-byte record: three fit in 4,000 bytes, the fourth does not.
          const reads = (count: number) =>
            Array.from({ length: count }, () => ({ method: 'GET', path: `/product/${id}/` }));
          assert.equal((await send(reads(3))).statusCode, 200);
          const merges = [{ method: 'PATCH', path: `/product/${id}/`, body: { stock: 1 } }, ...reads(5)];
          const refused = await send(merges);
          assert.equal(refused.statusCode, 422, refused.body);
          const problem = JSON.parse(refused.body) as { type: string; detail: string; errors: { pointer: string }[] };
          assert.match(problem.type, /\/invalid-batch$/);
          assert.match(problem.detail, /Operation 3 .*would pass the 4000 bytes/);
          assert.equal(problem.errors[0]?.pointer, '/3');
          await nothingWritten(before);
        } finally {
          await other.close();
        }
      });

      it("holds each operation's body to the limits of a record alone, pointed at inside it", async () => {
        // Objects 32 levels deep in the record: as deep as one may be (MAX_DEPTH), two more in the batch.
        let nested: unknown = 'deep';
        for (let level = 0; level < 31; level++) nested = { in: nested };
        const [made] = resultsOf(
          await batch([{ method: 'POST', path: '/product/', body: { name: 'Deep', nested } }]),
          1,
        );
        assert.equal(made?.status, 201);
        const before = await snapshot();
        const tooDeep = problemOf(
          await batch([
            { method: 'GET', path: `/product/${shop.productId}/` },
            { method: 'POST', path: '/product/', body: { name: 'Deeper', nested: { in: nested } } },
          ]),
          400,
          'invalid-record',
        );
        pointedAt(tooDeep, '/1/body/nested', { prefix: true });
        await nothingWritten(before);
      });

      it('honours MAX_BATCH_OPERATIONS', async () => {
        const { config: small } = loadConfig([], {
          DATABASE_URL: db.url,
          SCHEMAS: schemas,
          API_KEYS,
          MAX_BATCH_OPERATIONS: '3',
          MAX_EVENT_LOOP_DELAY: '0',
          RATE_LIMIT_MAX: '0',
        });
        assert.equal(small.maxBatchOperations, 3);
        const other = await buildApp({ config: small, logStream: false });
        try {
          const send = (count: number) =>
            other.inject({
              method: 'POST',
              url: '/batch/',
              headers: { 'content-type': 'application/json', ...headersOf(shop, 'read') },
              payload: JSON.stringify(Array.from({ length: count }, get)),
            });
          assert.equal((await send(3)).statusCode, 200);
          const refused = await send(4);
          assert.equal(refused.statusCode, 413, refused.body);
          assert.match(JSON.parse(refused.body).type, /\/too-many-operations$/);
          assert.match(JSON.parse(refused.body).detail, /more than the 3 one batch may/);
        } finally {
          await other.close();
        }
      });

      const MALFORMED: {
        what: string;
        sent: (id: number) => unknown;
        status: number;
        type: string;
        pointer: string;
      }[] = [
        {
          what: 'an object',
          sent: (id) => ({ method: 'GET', path: `/product/${id}/` }),
          status: 422,
          type: 'invalid-batch',
          pointer: '',
        },
        { what: 'an empty array', sent: () => [], status: 422, type: 'invalid-batch', pointer: '' },
        {
          what: 'an operation that is not an object',
          sent: () => [7],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1',
        },
        {
          what: 'an unknown member',
          sent: (id) => [{ method: 'GET', path: `/product/${id}/`, headers: { accept: 'text/plain' } }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/headers',
        },
        {
          what: 'an unknown member whose name holds a slash',
          sent: (id) => [{ method: 'GET', path: `/product/${id}/`, 'a/b~': 1 }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/a~1b~0',
        },
        {
          what: 'a broken percent escape in a path',
          sent: () => [{ method: 'GET', path: '/product/%E0%A4%A/' }],
          status: 404,
          type: 'not-found',
          pointer: '/1/path',
        },
        {
          what: 'a bad method',
          sent: (id) => [{ method: 'HEAD', path: `/product/${id}/` }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/method',
        },
        {
          what: 'no method',
          sent: (id) => [{ path: `/product/${id}/` }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/method',
        },
        {
          what: 'a path naming no collection',
          sent: () => [{ method: 'GET', path: '/widget/1/' }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/path',
        },
        {
          what: 'a path that is no record path',
          sent: () => [{ method: 'GET', path: '/products/events/' }],
          status: 404,
          type: 'not-found',
          pointer: '/1/path',
        },
        {
          what: 'a list',
          sent: () => [{ method: 'GET', path: '/products/' }],
          status: 405,
          type: 'method-not-allowed',
          pointer: '/1/method',
        },
        {
          what: 'a POST to a record',
          sent: (id) => [{ method: 'POST', path: `/product/${id}/`, body: {} }],
          status: 405,
          type: 'method-not-allowed',
          pointer: '/1/method',
        },
        {
          what: 'a body on a DELETE',
          sent: (id) => [{ method: 'DELETE', path: `/product/${id}/`, body: {} }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/body',
        },
        {
          what: 'a body on a GET',
          sent: (id) => [{ method: 'GET', path: `/product/${id}/`, body: {} }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/body',
        },
        {
          what: 'an array body',
          sent: () => [{ method: 'POST', path: '/product/', body: [{ name: 'a' }] }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/body',
        },
        {
          what: 'a create without a body',
          sent: () => [{ method: 'POST', path: '/product/' }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/body',
        },
        {
          what: 'an ifMatch on a create',
          sent: () => [{ method: 'POST', path: '/product/', body: { name: 'a' }, ifMatch: '"1-1"' }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/ifMatch',
        },
        {
          what: 'an ifMatch that is no text',
          sent: (id) => [{ method: 'DELETE', path: `/product/${id}/`, ifMatch: 7 }],
          status: 422,
          type: 'invalid-batch',
          pointer: '/1/ifMatch',
        },
      ];
      for (const { what, sent, status, type, pointer } of MALFORMED) {
        it(`refuses ${what}: ${status} ${type} at "${pointer}", nothing run`, async () => {
          const { id } = await product();
          const before = await snapshot();
          const body = sent(id);
          // Each bad operation comes second, after a create, so that its pointer names its index.
          const operations =
            Array.isArray(body) && body.length > 0
              ? [{ method: 'POST', path: '/product/', body: { name: 'first' } }, ...body]
              : body;
          const refused = problemOf(await batch(operations), status, type);
          pointedAt(refused, pointer);
          await nothingWritten(before);
          assert.equal((await read(`/product/${id}/`)).status, 200, 'the product is still there');
        });
      }

      it('refuses a body over BODY_LIMIT: 413 payload-too-large', async () => {
        const before = await snapshot();
        const big = 'x'.repeat(config.bodyLimit);
        problemOf(
          await batch([{ method: 'POST', path: '/product/', body: { name: 'Big', note: big } }]),
          413,
          'payload-too-large',
        );
        await nothingWritten(before);
      });
    });

    it('refuses a unique value taken, by a stored record or an earlier operation: 409, nothing written', async () => {
      const taken = sku();
      await product({ sku: taken });
      const before = await snapshot();
      const clash: Operation = { method: 'POST', path: '/product/', body: { name: 'Clash', sku: taken } };
      const stored = problemOf(
        await batch([{ method: 'POST', path: '/user/', body: { name: 'Unique', email: email() } }, clash]),
        409,
        'unique-conflict',
      );
      failedAt(stored, 1, clash, '/1/body/sku');
      const twice = sku();
      const second: Operation = { method: 'POST', path: '/product/', body: { name: 'Second', sku: twice } };
      const inBatch = problemOf(
        await batch([{ method: 'POST', path: '/product/', body: { name: 'First', sku: twice } }, second]),
        409,
        'unique-conflict',
      );
      failedAt(inBatch, 1, second, '/1/body/sku');
      await nothingWritten(before);
    });

    it('refuses an order naming a missing product as alone, and takes one naming a product made earlier in the batch', async () => {
      const before = await snapshot();
      const missing: Operation = {
        method: 'POST',
        path: '/order/',
        body: orderOf(shop.people.ada.id, [shop.productId, 99_999_999]),
      };
      const singleProblem = problemOf(await alone('write', missing), 422, 'missing-reference');
      assert.equal(singleProblem.errors?.[0]?.pointer, '/items/1/productId');
      const refused = problemOf(
        await batch([{ method: 'POST', path: '/user/', body: { name: 'Ref', email: email() } }, missing]),
        422,
        'missing-reference',
      );
      failedAt(refused, 1, missing, '/1/body/items/1/productId');
      await nothingWritten(before);

      const results = resultsOf(
        await batch([
          { method: 'POST', path: '/product/', body: { name: 'New', stock: 1 } },
          { method: 'POST', path: '/order/', body: orderOf(shop.people.ada.id, ['$0.id']) },
        ]),
        2,
      );
      const [made, order] = results.map((r) => r.body);
      assert.deepEqual(order?.items, [{ productId: made?.id, quantity: 1 }]);
      // The order's reference was recorded: the product cannot be deleted while it names it.
      problemOf(await alone('write', { method: 'DELETE', path: `/product/${made?.id}/` }), 409, 'record-referenced');
    });

    it('refuses deleting a product an order names, as alone: record-referenced, nothing written', async () => {
      const { id } = await product();
      const made = await alone('write', { method: 'POST', path: '/order/', body: orderOf(shop.people.bob.id, [id]) });
      assert.equal(made.status, 201);
      const remove: Operation = { method: 'DELETE', path: `/product/${id}/` };
      problemOf(await alone('write', remove), 409, 'record-referenced');
      const before = await snapshot();
      const refused = problemOf(
        await batch([{ method: 'POST', path: '/user/', body: { name: 'Del', email: email() } }, remove]),
        409,
        'record-referenced',
      );
      failedAt(refused, 1, remove, '/1', { prefix: true });
      await nothingWritten(before);
      assert.equal((await read(`/product/${id}/`)).status, 200);
    });

    it('replays an Idempotency-Key, refuses it for another batch, and frees it when the batch fails', async () => {
      const { id } = await product({ stock: 5 });
      const key = { 'idempotency-key': `batch-${kind.name}-${++serial}` };
      const operations = [
        { method: 'POST', path: '/user/', body: { name: 'Once', email: email() } },
        { method: 'PATCH', path: `/product/${id}/`, body: { stock: 4 } },
      ];
      const first = await batch(operations, 'write', key);
      resultsOf(first, 2);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const before = await snapshot();
      const again = await batch(operations, 'write', key);
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      // The same answer; its text may differ in blanks (PostgreSQL writes stored records with them).
      assert.deepEqual(json(again), json(first));
      await nothingWritten(before);
      assert.equal((await read(`/product/${id}/`)).etag, `"${id}-2"`, 'merged once');
      problemOf(await batch(operations.slice(0, 1), 'write', key), 422, 'idempotency-key-reused');

      // A batch that fails keeps nothing, its key included: the same batch runs once its cause is gone.
      const taken = sku();
      const blocker = await product({ sku: taken });
      const retried = [{ method: 'POST', path: '/product/', body: { name: 'Retry', sku: taken } }];
      const retryKey = { 'idempotency-key': `batch-${kind.name}-${++serial}` };
      problemOf(await batch(retried, 'write', retryKey), 409, 'unique-conflict');
      problemOf(await batch(retried, 'write', retryKey), 409, 'unique-conflict');
      assert.equal((await alone('write', { method: 'DELETE', path: `/product/${blocker.id}/` })).status, 200);
      const ran = await batch(retried, 'write', retryKey);
      assert.equal(ran.headers.get('idempotent-replayed'), null);
      const [made] = resultsOf(ran, 1);
      assert.equal(made?.body.sku, taken);
      const replayed = await batch(retried, 'write', retryKey);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(json(replayed), json(ran));
    });

    it('refuses a missing record as alone: 404 at the path, or 412 at the ifMatch; nothing written', async () => {
      const { id, etag } = await product();
      const gone = 99_999_999;
      for (const operation of [
        { method: 'GET', path: `/product/${gone}/` },
        { method: 'PATCH', path: `/product/${gone}/`, body: { stock: 1 } },
        { method: 'DELETE', path: `/product/${gone}/` },
        { method: 'GET', path: '/product/0/' },
      ]) {
        assert.equal((await alone('write', operation)).status, 404);
        const before = await snapshot();
        const refused = problemOf(
          await batch([{ method: 'POST', path: '/user/', body: { name: 'Gone', email: email() } }, operation]),
          404,
          'not-found',
        );
        pointedAt(refused, '/1/path');
        await nothingWritten(before);
      }
      assert.equal(
        (await alone('write', { method: 'PATCH', path: `/product/${id}/`, body: { stock: 2 } })).status,
        200,
      );
      const stale: Operation = { method: 'DELETE', path: `/product/${id}/`, ifMatch: etag };
      assert.equal((await alone('write', stale)).status, 412);
      const before = await snapshot();
      const refused = problemOf(
        await batch([{ method: 'POST', path: '/user/', body: { name: 'Stale', email: email() } }, stale]),
        412,
        'precondition-failed',
      );
      failedAt(refused, 1, stale, '/1/ifMatch');
      await nothingWritten(before);
    });

    it('keeps a password as alone: hashed, never returned, not even by reference', async () => {
      const address = email();
      const password = 'batch-made secret';
      const [made] = resultsOf(
        await batch([{ method: 'POST', path: '/user/', body: { name: 'Pat', email: address, password } }]),
        1,
      );
      assert.equal(made?.body.password, undefined);
      const signIn = (secret: string) =>
        call(origin, 'POST', '/users/auth/', { body: { email: address, password: secret } });
      assert.equal((await signIn(password)).status, 200);

      const [changed] = resultsOf(
        await batch([{ method: 'PATCH', path: `/user/${made?.body.id}/`, body: { password: 'changed in a batch' } }]),
        1,
      );
      assert.equal(changed?.body.password, undefined);
      assert.equal((await signIn(password)).status, 401);
      assert.equal((await signIn('changed in a batch')).status, 200);

      const before = await snapshot();
      const leak = problemOf(
        await batch([
          { method: 'POST', path: '/user/', body: { name: 'Leak', email: email(), password } },
          { method: 'POST', path: '/product/', body: { name: '$0.password' } },
        ]),
        422,
        'invalid-batch',
      );
      pointedAt(leak, '/1/body/name');
      await nothingWritten(before);

      // A hash costs a third of a second of CPU: one password a batch, as a bulk create takes none.
      const second = problemOf(
        await batch([
          { method: 'POST', path: '/user/', body: { name: 'One', email: email(), password } },
          { method: 'POST', path: '/product/', body: { name: 'between' } },
          { method: 'POST', path: '/user/', body: { name: 'Two', email: email(), password } },
        ]),
        422,
        'invalid-batch',
      );
      pointedAt(second, '/2/body/password');
      await nothingWritten(before);
    });

    it('is a plain POST, at /batch/ and /batch, needing no method override', async () => {
      const operations = [{ method: 'GET', path: `/product/${shop.productId}/` }];
      for (const path of ['/batch/', '/batch']) {
        const answer = await postBatch(origin, operations, headersOf(shop, 'write'), path);
        assert.equal(resultsOf(answer, 1)[0]?.body.id, shop.productId, path);
      }
      // The operations' own methods travel in the body: a change or delete needs no override header.
      const { id } = await product();
      const [changed, removed] = resultsOf(
        await batch([
          { method: 'PUT', path: `/product/${id}/`, body: { stock: 3 } },
          { method: 'DELETE', path: `/product/${id}/` },
        ]),
        2,
      );
      assert.deepEqual([changed?.body.stock, removed?.body.stock], [3, 3]);
      assert.equal((await read(`/product/${id}/`)).status, 404);
      // An override naming POST changes nothing; one naming another method is refused as on any POST-only path.
      resultsOf(await batch(operations, 'write', { 'x-http-method-override': 'POST' }), 1);
      const overridden = await batch(operations, 'write', { 'x-http-method-override': 'PUT' });
      problemOf(overridden, 405, 'method-not-allowed');
      assert.equal(overridden.headers.get('allow'), 'POST, OPTIONS');
      const got = await call(origin, 'GET', '/batch/', { headers: headersOf(shop, 'write') });
      problemOf(got, 405, 'method-not-allowed');
      assert.equal(got.headers.get('allow'), 'POST, OPTIONS');
    });

    describe('keys, tokens and rules: a batch does no more than its operations alone', () => {
      /** Sends `operation` alone and as the second of a batch; asserts both refuse it alike, nothing written. */
      const sameRefusal = async (
        sender: Sender,
        operation: Operation,
        status: number,
        type: string,
        pointer: string,
      ) => {
        const single = await alone(sender, operation);
        const singleProblem = problemOf(single, status, type);
        const before = await snapshot();
        const refused = problemOf(
          await batch([{ method: 'GET', path: `/product/${shop.productId}/` }, operation], sender),
          status,
          type,
        );
        failedAt(refused, 1, operation, pointer);
        assert.ok(refused.detail.endsWith(singleProblem.detail), `${refused.detail} / ${singleProblem.detail}`);
        await nothingWritten(before);
      };

      it('lets a read key read, and refuses it a write: 403 at the operation', async () => {
        const results = resultsOf(
          await batch(
            [
              { method: 'GET', path: `/product/${shop.productId}/` },
              { method: 'GET', path: `/order/${shop.orders.bob}/` },
            ],
            'read',
          ),
          2,
        );
        assert.equal(results[1]?.body.userId, shop.people.bob.id);
        await sameRefusal(
          'read',
          { method: 'PATCH', path: `/product/${shop.productId}/`, body: { stock: 0 } },
          403,
          'forbidden',
          '/1',
        );
        await sameRefusal(
          'read',
          { method: 'POST', path: '/user/', body: { name: 'R', email: email() } },
          403,
          'forbidden',
          '/1',
        );
      });

      it('refuses no credential where a key is needed (401) or the rules say no (403, 404), as alone', async () => {
        resultsOf(await batch([{ method: 'GET', path: `/product/${shop.productId}/` }], 'anonymous'), 1);
        const note = await alone('write', { method: 'POST', path: '/note/', body: { text: 'keys only' } });
        assert.equal(note.status, 201);
        const noteId = json<{ id: number }>(note).id;
        await sameRefusal('anonymous', { method: 'GET', path: `/note/${noteId}/` }, 401, 'unauthorized', '/1');
        await sameRefusal(
          'anonymous',
          { method: 'POST', path: '/note/', body: { text: 'x' } },
          401,
          'unauthorized',
          '/1',
        );
        await sameRefusal('anonymous', { method: 'DELETE', path: `/note/${noteId}/` }, 401, 'unauthorized', '/1');
        await sameRefusal(
          'anonymous',
          { method: 'PATCH', path: `/product/${shop.productId}/`, body: { stock: 0 } },
          403,
          'forbidden',
          '/1',
        );
        await sameRefusal(
          'anonymous',
          { method: 'GET', path: `/order/${shop.orders.ada}/` },
          404,
          'not-found',
          '/1/path',
        );
        const unknown = await postBatch(origin, [{ method: 'GET', path: `/product/${shop.productId}/` }], {
          authorization: `Bearer ${UNKNOWN_KEY}`,
        });
        problemOf(unknown, 401, 'unauthorized');
      });

      it("never makes a shopper's order another user's: the owner field is theirs, as alone", async () => {
        const forBob: Operation = {
          method: 'POST',
          path: '/order/',
          body: orderOf(shop.people.bob.id, [shop.productId]),
        };
        const single = await alone('ada', forBob);
        assert.equal(single.status, 201, single.text);
        assert.equal(json(single).userId, shop.people.ada.id);
        const [made] = resultsOf(await batch([forBob], 'ada'), 1);
        assert.equal(made?.status, 201);
        assert.equal(made?.body.userId, shop.people.ada.id);
      });

      it('refuses a shopper changing a product (staff only): 403 at the operation, as alone', async () => {
        const before = (await read(`/product/${shop.productId}/`)).body;
        await sameRefusal(
          'ada',
          { method: 'PATCH', path: `/product/${shop.productId}/`, body: { stock: 0 } },
          403,
          'forbidden',
          '/1',
        );
        await sameRefusal('ada', { method: 'DELETE', path: `/product/${shop.productId}/` }, 403, 'forbidden', '/1');
        assert.deepEqual((await read(`/product/${shop.productId}/`)).body, before);
      });

      it("hides another shopper's order: 404 at the path, as alone, and keeps nothing before it", async () => {
        await sameRefusal('ada', { method: 'GET', path: `/order/${shop.orders.bob}/` }, 404, 'not-found', '/1/path');
        await sameRefusal(
          'ada',
          { method: 'PATCH', path: `/order/${shop.orders.bob}/`, body: { status: 'paid' } },
          404,
          'not-found',
          '/1/path',
        );
        const before = await snapshot();
        const peek: Operation = { method: 'GET', path: `/order/${shop.orders.bob}/` };
        const refused = problemOf(
          await batch(
            [{ method: 'POST', path: '/order/', body: orderOf(shop.people.ada.id, [shop.productId]) }, peek],
            'ada',
          ),
          404,
          'not-found',
        );
        failedAt(refused, 1, peek, '/1/path');
        await nothingWritten(before);
      });
    });

    it('lets exactly one of two racing batches take the last item in stock, 10 rounds in 10', async () => {
      for (let round = 0; round < 10; round++) {
        const { id, etag } = await product({ stock: 1 });
        const ordersBefore = (await tally()).orders;
        const take: Operation = { method: 'PUT', path: `/product/${id}/`, body: { stock: 0 }, ifMatch: etag };
        const order: Operation = { method: 'POST', path: '/order/', body: orderOf(shop.people.ada.id, [id]) };
        // Odd rounds order first: each batch then holds the product for its order's reference
        // (a lock that keeps it from being deleted) before changing it.
        const operations = round % 2 === 0 ? [take, order] : [order, take];
        const answers = await Promise.all([batch(operations), batch(operations)]);
        const statuses = answers.map((a) => a.status).sort();
        assert.deepEqual(statuses, [200, 412], `round ${round}: ${answers.map((a) => a.text).join(' | ')}`);
        const loser = answers.find((a) => a.status === 412) as Answer;
        failedAt(
          problemOf(loser, 412, 'precondition-failed'),
          operations.indexOf(take),
          take,
          `/${operations.indexOf(take)}/ifMatch`,
        );
        assert.equal((await tally()).orders, ordersBefore + 1, `round ${round}: one order`);
        const now = await read(`/product/${id}/`);
        assert.deepEqual([now.body.stock, now.etag], [0, `"${id}-2"`], `round ${round}`);
      }
    });

    it('keeps one of two batches changing two products in opposite orders, the other 412, 5 rounds in 5', async () => {
      for (let round = 0; round < 5; round++) {
        const [a, b] = [await product({ stock: 1 }), await product({ stock: 1 })];
        const take = ({ id, etag }: { id: number; etag: string }): Operation => ({
          method: 'PATCH',
          path: `/product/${id}/`,
          body: { stock: 0 },
          ifMatch: etag,
        });
        // Each locks the product the other locks second: on PostgreSQL they may deadlock, and
        // the one PostgreSQL ends is run again, then finds its product changed.
        const answers = await Promise.all([batch([take(a), take(b)]), batch([take(b), take(a)])]);
        const statuses = answers.map((answer) => answer.status).sort();
        assert.deepEqual(statuses, [200, 412], `round ${round}: ${answers.map((answer) => answer.text).join(' | ')}`);
        pointedAt(
          problemOf(answers.find((answer) => answer.status === 412) as Answer, 412, 'precondition-failed'),
          '/0/ifMatch',
        );
        for (const { id } of [a, b]) {
          const now = await read(`/product/${id}/`);
          assert.deepEqual([now.body.stock, now.etag], [0, `"${id}-2"`], `round ${round}: changed once`);
        }
      }
    });

    itKeptTheDocument(checked);
  });
}
