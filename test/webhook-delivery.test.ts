/**
 * Webhooks delivered from the change log to real receivers (plain node:http servers that
 * verify every signature with the standardwebhooks library), on both stores: every change
 * of a thousand writes (a batch's among them) in commit order per record; an endpoint that
 * fails for a while, then recovers; one that never does, whose deliveries become dead letters
 * and are replayed once it is back; and a slow endpoint that delays no other webhook.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import type { Change } from '../src/store/change-log-model.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { STORE_KINDS, type TestDatabase, type TestStoreKind } from './helpers/stores.js';
import { type Received, type Receiver, startReceiver } from './helpers/verifying-receiver.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Makes a webhook through the API; the receiver learns its secret. */
async function subscribe(app: FastifyInstance, receiver: Receiver, spec: object = {}): Promise<number> {
  const response = await app.inject({
    method: 'POST',
    url: '/webhooks/',
    headers: JSON_HEADERS,
    payload: { url: receiver.url, collections: ['products'], ...spec },
  });
  assert.equal(response.statusCode, 201, response.body);
  const made = JSON.parse(response.body) as { id: number; secret: string };
  receiver.secret = made.secret;
  return made.id;
}

async function write(app: FastifyInstance, method: string, url: string, payload?: object) {
  const response = await app.inject({ method: method as 'POST', url, headers: JSON_HEADERS, payload });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.body === '' ? undefined : (JSON.parse(response.body) as { id: number });
}

/** Every change of `collection` the log holds, in order. */
async function logged(store: Store, collection: string): Promise<Change[]> {
  const all: Change[] = [];
  const { changes } = store;
  // PostgreSQL numbers changes just after they commit: this waits until every committed one is.
  await changes.bounds(collection);
  for (;;) {
    const page = await changes.read(collection, all.at(-1)?.seq ?? 0);
    if (page.length === 0) return all;
    all.push(...page);
  }
}

/** Looks again every 20 ms until `condition` holds (at most 1,500 times): for state no receiver sees. */
async function eventually(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; !(await condition()); attempt++) {
    if (attempt >= 1500) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The first delivery of each id, in arrival order. */
function firstOfEach(deliveries: readonly Received[]): Received[] {
  const seen = new Set<string>();
  return deliveries.filter((delivery) => !seen.has(delivery.id) && seen.add(delivery.id));
}

/** Asserts that `deliveries` hold exactly `changes`, each record's in commit order. */
function assertInOrder(deliveries: readonly Received[], changes: readonly Change[]) {
  const firsts = firstOfEach(deliveries);
  assert.deepEqual(
    new Set(firsts.map((delivery) => delivery.id)),
    new Set(changes.map((c) => `evt_products_${c.seq}`)),
  );
  const byRecord = new Map<number, number[]>();
  for (const delivery of firsts) {
    const seq = Number(delivery.id.split('_').at(-1));
    const id = Number(delivery.payload.data.id);
    byRecord.set(id, [...(byRecord.get(id) ?? []), seq]);
  }
  for (const [id, seqs] of byRecord) {
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      `record ${id}'s changes arrived out of order`,
    );
  }
}

/** An app on a new database of `kind` whose failed deliveries are retried for `retrySeconds`. */
function useWebhookApp(kind: TestStoreKind, retrySeconds: number): { app: FastifyInstance; store: Store } {
  const ctx = {} as { app: FastifyInstance; store: Store; db: TestDatabase };
  before(async () => {
    ctx.db = await kind.create();
    const config = defaultConfig({
      databaseUrl: ctx.db.url,
      maxEventLoopDelay: 0,
      rateLimitMax: 0,
      webhooksAllowPrivate: true,
      webhooksBackoffSeconds: 0.02,
      webhooksRetrySeconds: retrySeconds,
      webhooksTimeoutSeconds: 30,
      webhooksInFlightPerWebhook: 8,
    });
    ctx.store = await openStore(ctx.db.url, loadCatalog(config));
    ctx.app = await buildApp({ config, store: ctx.store, logStream: false });
    await ctx.app.ready();
  });
  after(async () => {
    await ctx.app?.close();
    await ctx.store?.close();
    await ctx.db?.drop();
  });
  return ctx;
}

for (const kind of STORE_KINDS) {
  describe(`webhook delivery (${kind.name})`, () => {
    // Retries outlast every test here: none of its webhooks may be paused.
    const ctx = useWebhookApp(kind, 600);
    it('sends every change of a thousand writes, signed, each record’s in commit order', async () => {
      const receiver = await startReceiver();
      try {
        await subscribe(ctx.app, receiver);
        const ids: number[] = [];
        for (let n = 0; n < 50; n++) ids.push((await write(ctx.app, 'POST', '/product/', { n }))?.id as number);
        const writes = Array.from(
          { length: 950 },
          (_, n) => () => write(ctx.app, 'PUT', `/product/${ids[n % 50]}/`, { n }),
        );
        for (let n = 0; n < writes.length; n += 10) await Promise.all(writes.slice(n, n + 10).map((w) => w()));
        await write(ctx.app, 'POST', '/batch/', [
          { method: 'POST', path: '/product/', body: { batch: 1 } },
          { method: 'PATCH', path: '/product/$0.id/', body: { batch: 2 } },
          { method: 'DELETE', path: `/product/${ids[0]}/` },
        ]);
        const changes = await logged(ctx.store, 'products');
        assert.ok(changes.length >= 1000, `${changes.length} changes`);
        await receiver.until(() => new Set(receiver.accepted.map((d) => d.id)).size >= changes.length);
        assert.ok(receiver.received.every((delivery) => delivery.verified));
        assertInOrder(receiver.accepted, changes);
        const types = new Set(receiver.accepted.map((delivery) => delivery.payload.type));
        assert.deepEqual(types, new Set(['products.created', 'products.updated', 'products.deleted']));
      } finally {
        await receiver.close();
      }
    });

    it('retries an endpoint that fails for a while: everything arrives, in order', async () => {
      let failuresLeft = 12;
      const receiver = await startReceiver(() => (failuresLeft-- > 0 ? 500 : 204));
      try {
        await subscribe(ctx.app, receiver);
        const from = (await logged(ctx.store, 'products')).at(-1)?.seq ?? 0;
        const made = await write(ctx.app, 'POST', '/product/', { step: 0 });
        for (let step = 1; step <= 5; step++) await write(ctx.app, 'PUT', `/product/${made?.id}/`, { step });
        for (let n = 0; n < 10; n++) await write(ctx.app, 'POST', '/product/', { n });
        const changes = (await logged(ctx.store, 'products')).filter((change) => change.seq > from);
        await receiver.until(() => new Set(receiver.accepted.map((d) => d.id)).size >= changes.length);
        assert.ok(receiver.received.some((delivery) => delivery.status === 500));
        assertInOrder(receiver.accepted, changes);
      } finally {
        await receiver.close();
      }
    });

    it('lets a slow endpoint hold back no other webhook', async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const slow = await startReceiver(async () => {
        await held;
        return 204;
      });
      const quick = await startReceiver();
      try {
        await subscribe(ctx.app, slow);
        await subscribe(ctx.app, quick);
        const made: ({ id: number } | undefined)[] = [];
        for (let n = 0; n < 40; n++) made.push(await write(ctx.app, 'POST', '/product/', { n }));
        const wanted = new Set(made.map((record) => record?.id));
        const got = (receiver: Receiver) => new Set(receiver.accepted.map((d) => d.payload.data.id)).size;
        await quick.until(() => [...wanted].every((id) => quick.accepted.some((d) => d.payload.data.id === id)));
        assert.equal(got(slow), 0);
        assert.ok(slow.received.length <= 8, `${slow.received.length} deliveries under way to one webhook`);
        release();
        await slow.until(() => [...wanted].every((id) => slow.accepted.some((d) => d.payload.data.id === id)));
      } finally {
        release();
        await slow.close();
        await quick.close();
      }
    });
  });

  describe(`a dead endpoint's webhook (${kind.name})`, () => {
    // Retries end after a second: its deliveries become dead letters, and it is paused.
    const ctx = useWebhookApp(kind, 1);
    it('keeps what a dead endpoint missed as dead letters, pauses it, and replays them once it is back', async () => {
      let up = false;
      const receiver = await startReceiver(() => (up ? 204 : 503));
      try {
        const id = await subscribe(ctx.app, receiver);
        const since = new Date().toISOString();
        const made: ({ id: number } | undefined)[] = [];
        for (let n = 0; n < 3; n++) made.push(await write(ctx.app, 'POST', '/product/', { n }));
        const read = async () => JSON.parse((await ctx.app.inject({ url: `/webhook/${id}/` })).body);
        await receiver.until(() => receiver.received.length > 0);
        await eventually(async () => (await read()).paused !== null);
        const paused = await read();
        assert.match(paused.paused.reason, /every delivery failed/);
        const dead = JSON.parse((await ctx.app.inject({ url: `/webhook/${id}/deliveries/?state=dead` })).body);
        assert.ok(dead.length >= 1, JSON.stringify(dead));
        assert.equal(receiver.accepted.length, 0);
        up = true;
        const replay = await ctx.app.inject({
          method: 'POST',
          url: `/webhook/${id}/replay/`,
          headers: JSON_HEADERS,
          payload: { since },
        });
        assert.equal(replay.statusCode, 202, replay.body);
        await receiver.until(() =>
          made.every((record) => receiver.accepted.some((d) => d.payload.data.id === record?.id)),
        );
        assert.equal((await read()).paused, null);
      } finally {
        await receiver.close();
      }
    });
  });
}
