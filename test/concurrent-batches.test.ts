/**
 * Batches that change the same records at once, in different orders, on every store: each
 * patches the shop's four products in an order rotated by one from the batch before, then
 * creates an order naming them, and all are sent together with a write key. On PostgreSQL
 * two such batches used to hold a product each that the other waited for: PostgreSQL ended
 * one of them (a deadlock), and with 40 at once nearly every batch was answered 503. Each
 * batch now locks the records it names before its first step, in one order every batch
 * follows (src/store/sql/sql-batch.ts), so they take turns and every one is kept.
 *
 * And on PostgreSQL, a request that finds every pooled connection busy waits
 * DATABASE_CONNECT_TIMEOUT for one, then is answered 503 with Retry-After and changes
 * nothing; the requests holding the pool are served when they can go on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openStore } from '../src/store/open-store.js';
import type { BatchStep } from '../src/store/store.js';
import { body, problem, useApp, useDatabase } from './helpers/app.js';
import { catalogOf } from './helpers/catalog.js';
import { send, shopSettings } from './helpers/shop-accounts.js';
import { postgresKind, STORE_KINDS } from './helpers/stores.js';

const BATCHES = 40;
const PRODUCTS = 4;
/** Requests beside the batches that touch none of their records: each must be served too. */
const BYSTANDERS = 10;

interface Entry {
  status: number;
  headers: { etag: string };
  body: { id: number; stock?: number };
}

/** The version an ETag (`"id-version"`) names. */
const versionOf = (etag: string | undefined) => Number(/-(\d+)"$/.exec(etag ?? '')?.[1]);

for (const kind of STORE_KINDS) {
  describe(`batches changing the same records at once (${kind.name})`, () => {
    // The wait for a pooled connection long enough that only a deadlock could fail a batch.
    const ctx = useApp(kind, shopSettings({ rateLimitMax: 0, databaseConnectTimeout: 120_000 }));

    it(`${BATCHES} batches over the same ${PRODUCTS} products in rotated orders: every one kept, one after another`, async () => {
      const write = (method: 'GET' | 'POST', url: string, payload?: object) =>
        send(ctx.app, undefined, 'write', { method, url, ...(payload !== undefined && { payload }) });
      const user = body<{ id: number }>(await write('POST', '/user/', { name: 'Ada', email: 'ada@example.com' }));
      const products: number[] = [];
      for (let i = 0; i < PRODUCTS; i++) {
        products.push(body<{ id: number }>(await write('POST', '/product/', { name: `p${i}`, stock: 0 })).id);
      }
      const items = products.map((productId) => ({ productId, quantity: 1 }));
      const batches = Array.from({ length: BATCHES }, (_, b) => [
        ...products.map((_, k) => ({
          method: 'PATCH',
          path: `/product/${products[(b + k) % PRODUCTS]}/`,
          body: { stock: b + 1 },
        })),
        { method: 'POST', path: '/order/', body: { userId: user.id, items, status: 'placed' } },
      ]);
      const bystanders = Array.from({ length: BYSTANDERS }, (_, i) =>
        i % 2 === 0 ? write('POST', '/product/', { name: `beside ${i}` }) : write('GET', `/user/${user.id}/`),
      );
      const [answers, beside] = await Promise.all([
        Promise.all(batches.map((operations) => write('POST', '/batch/', operations))),
        Promise.all(bystanders),
      ]);

      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        Array(BATCHES).fill(200),
        `every batch kept: ${answers.find((answer) => answer.statusCode !== 200)?.body}`,
      );
      assert.deepEqual(
        beside.map((answer) => answer.statusCode),
        Array.from({ length: BYSTANDERS }, (_, i) => (i % 2 === 0 ? 201 : 200)),
        'the requests beside them are served',
      );
      // Each batch found all four products at one version: no other batch came in between.
      const seen = answers.map((answer) => {
        const entries = body<Entry[]>(answer);
        const versions = new Set(entries.slice(0, PRODUCTS).map((entry) => versionOf(entry.headers.etag)));
        assert.equal(versions.size, 1, `a batch saw its products at versions ${[...versions]}`);
        assert.equal(entries[PRODUCTS]?.status, 201);
        return { version: [...versions][0] as number, stock: entries[0]?.body.stock as number };
      });
      const versions = seen.map((each) => each.version).sort((a, b) => a - b);
      assert.deepEqual(
        versions,
        Array.from({ length: BATCHES }, (_, b) => b + 2),
        'one version per batch',
      );
      // Every product is as the last batch to change it left it, and that batch is the same for all four.
      const last = seen.find((each) => each.version === BATCHES + 1);
      for (const id of products) {
        const answer = await write('GET', `/product/${id}/`);
        assert.equal(versionOf(answer.headers.etag as string), BATCHES + 1);
        assert.equal(body<Entry['body']>(answer).stock, last?.stock);
      }
      const orders = body<unknown[]>(await write('GET', '/orders/?limit=1000'));
      assert.equal(orders.length, BATCHES, 'one order per batch');
    });
  });
}

// A pool is PostgreSQL's alone: SQLite's writes take turns in group commit, and its wait
// for another process's lock is test/concurrent-merges.test.ts's.
if (STORE_KINDS.includes(postgresKind)) {
  describe('a full pool (postgres)', () => {
    // One pooled connection, and a wait for it short enough to end while the other holds it.
    const ctx = useApp(
      postgresKind,
      shopSettings({ rateLimitMax: 0, databasePoolSize: 1, databaseConnectTimeout: 200 }),
    );

    it('a request that finds every connection busy is answered 503 with Retry-After, and changes nothing', async () => {
      const write = (url: string, payload: object) =>
        send(ctx.app, undefined, 'write', { method: 'POST', url, payload });
      const held = body<{ id: number }>(await write('/product/', { name: 'held', stock: 1 }));
      const outside = new pg.Client({ connectionString: ctx.db.url });
      await outside.connect();
      try {
        // Another client holds the product: the batch that changes it keeps the pool's one connection while it waits.
        await outside.query('BEGIN');
        await outside.query('SELECT id FROM products WHERE id = $1 FOR UPDATE', [held.id]);
        const holder = write('/batch/', [{ method: 'PATCH', path: `/product/${held.id}/`, body: { stock: 2 } }]);
        await until(async () => (await lockWaiters(outside)) === 1);

        const refused = await write('/batch/', [{ method: 'POST', path: '/product/', body: { name: 'bystander' } }]);
        problem(refused, 503, 'service-unavailable');
        assert.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After says when to come back');
        const { rows } = await outside.query(
          `SELECT count(*)::int AS n FROM products WHERE data->>'name' = 'bystander'`,
        );
        assert.equal(rows[0]?.n, 0, 'the refused batch wrote nothing');

        await outside.query('ROLLBACK');
        const kept = await holder;
        assert.equal(kept.statusCode, 200, kept.body);
        assert.equal(body<Entry[]>(kept)[0]?.body.stock, 2);
        const again = await write('/batch/', [{ method: 'POST', path: '/product/', body: { name: 'bystander' } }]);
        assert.equal(again.statusCode, 200, 'once the pool has a connection free, the same batch is served');
      } finally {
        await outside.end();
      }
    });
  });
}

// Which transaction PostgreSQL ends in a deadlock is a matter of timing, except where one side
// never looks: here the outside transaction waits with deadlock_timeout at an hour, so the
// batch is the one that finds the deadlock, a second after it starts to wait, and is ended.
if (STORE_KINDS.includes(postgresKind)) {
  describe('a batch the database ended (postgres)', () => {
    const ctx = useDatabase(postgresKind);

    it('locks up front, when run again, the records its steps named only through results', async () => {
      const store = await openStore(ctx.db.url, catalogOf(['carts']));
      const outside = [
        new pg.Client({ connectionString: ctx.db.url }),
        new pg.Client({ connectionString: ctx.db.url }),
      ];
      const [holder, other] = outside as [pg.Client, pg.Client];
      try {
        const carts = await store.collection('carts').createMany(['{}', '{}', '{}']);
        const [one, two, three] = carts.map((cart) => cart.id) as [number, number, number];
        for (const client of outside) await client.connect();
        // Nothing in `changes`: as for ids a batch names through its results, each is locked by its own step.
        const merge = (id: number): BatchStep => ({
          collection: 'carts',
          kind: 'merge',
          id,
          patch: { by: 'batch' },
          conditions: {},
        });
        const steps = [one, three, two].map(merge);
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM carts WHERE id = $1 FOR UPDATE', [three]);
        await other.query('BEGIN');
        await other.query(`SET LOCAL deadlock_timeout = '1h'`);
        await other.query('SELECT id FROM carts WHERE id = $1 FOR UPDATE', [two]);
        const batch = store.batch({ next: (done) => steps[done.length], budgetMs: 60_000 });
        await until(async () => (await lockWaiters(holder)) === 1); // the batch holds one, waits for three
        const otherWaits = other.query('SELECT id FROM carts WHERE id = $1 FOR UPDATE', [one]);
        await until(async () => (await lockWaiters(holder, '%')) === 2);
        // The batch takes three, then waits for two, which `other` holds while it waits for one: a deadlock.
        await holder.query('ROLLBACK');
        await otherWaits;
        // Run again, the batch locks all three in one statement before its first step, and waits there.
        await until(async () => (await lockWaiters(holder, 'restock', 'ORDER BY id')) === 1);
        await other.query('COMMIT');
        const merged = await batch;
        assert.deepEqual(
          merged.map((cart) => [cart?.id, cart?.version]),
          steps.map((step) => [(step as { id: number }).id, 2]),
        );
      } finally {
        for (const client of outside) await client.end();
        await store.close();
      }
    });
  });
}

/** How many connections of `application` (a LIKE pattern) wait for a row another transaction holds, running a query with `inQuery` in it. */
async function lockWaiters(client: pg.Client, application = 'restock', inQuery = ''): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE $1 AND wait_event_type = 'Lock'
        AND strpos(query, $2) > 0`,
    [application, inQuery],
  );
  return rows[0]?.n ?? 0;
}

/** Polls `holds` until it does (at most 200 times, 25 ms apart). */
async function until(holds: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await holds()) return;
    await sleep(25);
  }
  assert.fail('the condition never held');
}
