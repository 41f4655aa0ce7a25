/**
 * The change feed, on both stores, over real HTTP: every committed change once, in commit
 * order, numbered without gaps; nothing for a write that failed; resuming by Last-Event-ID
 * or `since` with nothing missed or doubled; a reset past the log's retention; the list's
 * filters; heartbeats; and changes made through one server process delivered by another.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { parseApiKeys } from '../src/config/api-keys.js';
import { type Config, defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { DEFAULT_STORE_OPTIONS, openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { catalogOf } from './helpers/catalog.js';
import { openEventStream, type StreamEvent } from './helpers/event-stream.js';
import { type ContractRecorder, checkAgainstDocument, itKeptTheDocument } from './helpers/openapi-validator.js';
import { type RunningServer, startServer, waitForWorkers } from './helpers/server.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const KEY = 'feed-reader-key-0123456789abcdef';
const record = (event: StreamEvent) => JSON.parse(event.data) as Record<string, unknown> & { id: number };

for (const kind of STORE_KINDS) {
  describe(`the change feed (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    let app: FastifyInstance;
    let origin = '';
    let config: Config;
    const checked: { contract?: ContractRecorder } = {};

    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, catalogOf(['users', 'products']));
      config = defaultConfig({
        databaseUrl: db.url,
        maxEventLoopDelay: 0,
        rateLimitMax: 0,
        eventsHeartbeatSeconds: 1,
      });
      app = await buildApp({ config, store, logStream: false });
      checked.contract = checkAgainstDocument(app);
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
      await checked.contract.load();
    });
    after(async () => {
      await app?.close();
      await store?.close();
      await db?.drop();
    });

    const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { ...JSON_HEADERS, ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };

    it('sends created, updated and deleted with the record, numbered in order, and nothing for a failed write', async () => {
      const feed = await openEventStream(`${origin}/users/events/`);
      assert.equal(feed.status, 200);
      try {
        const created = await send('POST', '/user/', { name: 'Ada' });
        assert.equal(
          (await send('PUT', `/user/${created.body.id}/`, { name: 'Ada' }, { 'if-match': '"0-0"' })).status,
          412,
        );
        await send('PUT', `/user/${created.body.id}/`, { name: 'Ada King' });
        await send('DELETE', `/user/${created.body.id}/`);
        const events = await feed.take(3);
        assert.deepEqual(
          events.map((e) => e.event),
          ['created', 'updated', 'deleted'],
        );
        assert.deepEqual(
          events.map((e) => record(e).name),
          ['Ada', 'Ada King', 'Ada King'],
        );
        const ids = events.map((e) => Number(e.id));
        assert.deepEqual(ids, [ids[0], (ids[0] as number) + 1, (ids[0] as number) + 2]);
        assert.deepEqual(feed.pending(), [], 'the refused change sent nothing');
      } finally {
        await feed.close();
      }
    });

    it('numbers concurrent writes without gaps, each once, in the order they committed', async () => {
      const { last } = await store.changes.bounds('products');
      const feed = await openEventStream(`${origin}/products/events/`);
      try {
        const created = await Promise.all(
          Array.from({ length: 40 }, (_, i) => send('POST', '/product/', { name: `p${i}` })),
        );
        const events = await feed.take(40);
        assert.deepEqual(
          events.map((e) => Number(e.id)),
          Array.from({ length: 40 }, (_, i) => last + 1 + i),
        );
        assert.deepEqual(
          events.map((e) => record(e).id).sort((a, b) => a - b),
          created.map((c) => c.body.id as number).sort((a, b) => a - b),
        );
      } finally {
        await feed.close();
      }
    });

    it('resumes after Last-Event-ID or since with nothing missed and nothing doubled', async () => {
      const feed = await openEventStream(`${origin}/users/events/`);
      await send('POST', '/user/', { name: 'one' });
      const [first] = await feed.take(1);
      await feed.close();
      for (const name of ['two', 'three']) await send('POST', '/user/', { name });
      for (const resume of [
        () => openEventStream(`${origin}/users/events/`, { 'last-event-id': String(first?.id) }),
        () => openEventStream(`${origin}/users/events/?since=${first?.id}`),
      ]) {
        const again = await resume();
        try {
          const events = await again.take(2);
          assert.deepEqual(
            events.map((e) => record(e).name),
            ['two', 'three'],
          );
          assert.deepEqual(
            events.map((e) => Number(e.id)),
            [Number(first?.id) + 1, Number(first?.id) + 2],
          );
        } finally {
          await again.close();
        }
      }
    });

    // On SQLite the trigger numbers every change as it logs it; PostgreSQL numbers them after commit.
    const numberedAfterCommit = kind.name === 'postgres' ? it : undefined;
    numberedAfterCommit?.('numbers a change written by another client of the database too', async () => {
      const feed = await openEventStream(`${origin}/users/events/`);
      const other = new pg.Client({ connectionString: db.url });
      await other.connect();
      try {
        // Written past restock, as a script or another tool might: once a second, every
        // instance numbers what committed without it.
        await other.query(`INSERT INTO users (data) VALUES ('{"name": "from psql"}')`);
        const [event] = await feed.take(1);
        assert.equal(event?.event, 'created');
        assert.equal(record(event as StreamEvent).name, 'from psql');
      } finally {
        await other.end();
        await feed.close();
      }
    });

    numberedAfterCommit?.('delivers changes while every pooled connection waits on a lock', async () => {
      // One pooled connection, and time enough that the blocked read below keeps it.
      const options = { ...DEFAULT_STORE_OPTIONS, poolSize: 1, statementTimeoutMs: 120_000 };
      const busyStore = await openStore(db.url, catalogOf(['users', 'products']), options);
      const busyApp = await buildApp({ config, store: busyStore, logStream: false });
      const busyOrigin = await busyApp.listen({ host: '127.0.0.1', port: 0 });
      const locker = new pg.Client({ connectionString: db.url });
      const writer = new pg.Client({ connectionString: db.url });
      await Promise.all([locker.connect(), writer.connect()]);
      const feed = await openEventStream(`${busyOrigin}/products/events/`);
      try {
        await locker.query('BEGIN; LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
        const blockedRead = fetch(`${busyOrigin}/users/`);
        await waitFor(async () => (await lockWaiters(writer)) > 0);
        await writer.query(`INSERT INTO products (data) VALUES ('{"name": "while busy"}')`);
        // Numbering it and reading it for the feed take connections of their own.
        const [event] = await Promise.race([
          feed.take(1),
          sleep(60_000, undefined, { ref: false }).then(() =>
            assert.fail('no event while the pooled connection was busy'),
          ),
        ]);
        assert.equal(record(event as StreamEvent).name, 'while busy');
        assert.equal(await lockWaiters(writer), 1, 'the read still waits on the lock');
        await locker.query('ROLLBACK');
        assert.equal((await blockedRead).status, 200);
      } finally {
        await locker.end();
        await writer.end();
        await feed.close();
        await busyApp.close();
        await busyStore.close();
      }
    });

    it("applies the list's filters", async () => {
      const feed = await openEventStream(`${origin}/products/events/?price[gte]=10&name[startsWith]=T`);
      try {
        await send('POST', '/product/', { name: 'Teapot', price: 5 });
        await send('POST', '/product/', { name: 'Cup', price: 12 });
        await send('POST', '/product/', { name: 'Tray', price: 12 });
        await send('POST', '/product/', { name: 'Tin', price: '12' });
        const [event] = await feed.take(1);
        assert.equal(record(event as StreamEvent).name, 'Tray');
      } finally {
        await feed.close();
      }
    });

    it('sends an update that takes a record out of the filter as a deleted, with the reason', async () => {
      const feed = await openEventStream(`${origin}/products/events/?status=live`);
      try {
        const made = await send('POST', '/product/', { name: 'Kettle', status: 'live' });
        await send('PUT', `/product/${made.body.id}/`, { status: 'retired' });
        await send('PUT', `/product/${made.body.id}/`, { name: 'Kettle 2' });
        const [created, left] = await feed.take(2);
        assert.equal(created?.event, 'created');
        assert.equal(left?.event, 'deleted');
        assert.deepEqual(
          { ...record(left as StreamEvent), createdAt: undefined, updatedAt: undefined },
          {
            id: made.body.id,
            name: 'Kettle',
            // As the feed last saw it: the new status is what its filter leaves out.
            status: 'live',
            reason: 'left-filter',
            createdAt: undefined,
            updatedAt: undefined,
          },
        );
        assert.deepEqual(feed.pending(), [], 'an update outside the filter sends nothing');
      } finally {
        await feed.close();
      }
    });

    /**
     * A server with heartbeats `heartbeatSeconds` apart on a Unix socket, whose kernel buffer
     * is a fixed 200 kB or so (loopback TCP's grows to many MB), so that what a client leaves
     * unread waits in the server; and a client of its products feed that reads nothing yet.
     * `cutFor` waits until the server counts the feed's cut for `reason` (a paused socket does
     * not see its end), then reads the rest and resolves with the bytes the client got.
     */
    const pausedFeed = async (heartbeatSeconds: number, more: Partial<Config> = {}) => {
      const path = join(mkdtempSync(join(tmpdir(), 'restock-feed-')), 'socket');
      const local = await buildApp({
        config: { ...config, eventsHeartbeatSeconds: heartbeatSeconds, ...more },
        store,
        logStream: false,
      });
      await local.listen({ path });
      const socket = connect(path);
      await once(socket, 'connect');
      socket.write('GET /products/events/ HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
      socket.pause();
      const metrics = async () => (await local.inject({ url: '/metrics' })).body;
      // The feed is open once the server counts it; events written before would not be sent.
      const open = /restock_change_feeds_open\{collection="products"\} 1\n/;
      for (let i = 0; i < 3000 && !open.test(await metrics()); i++) await sleep(10);
      assert.match(await metrics(), open, 'the feed did not open');
      const cutFor = async (reason: 'buffer' | 'stall') => {
        const cut = `restock_change_feed_cuts_total{collection="products",reason="${reason}"} 1`;
        for (let i = 0; i < 3000 && !(await metrics()).includes(cut); i++) await sleep(10);
        assert.ok((await metrics()).includes(cut), 'the feed was not cut off');
        let received = 0;
        socket.on('data', (chunk: Buffer) => {
          received += chunk.length;
        });
        socket.resume();
        await once(socket, 'close');
        return received;
      };
      return { local, metrics, cutFor, socket };
    };
    // Numbers, not text: no search index has to take them in. About 480 kB an event.
    const big = Array.from({ length: 60_000 }, (_, i) => 1_000_000 + i);

    it('cuts off a client that reads nothing once more comes while a MiB waits for it', async () => {
      // Heartbeats a minute apart: only the bytes cut.
      const { local, cutFor } = await pausedFeed(60);
      try {
        // The third event leaves more than a MiB waiting, and the fourth is not sent.
        for (let i = 0; i < 5; i++)
          assert.equal((await send('POST', '/product/', { name: `big ${i}`, big })).status, 201);
        const received = await cutFor('buffer');
        assert.ok(received < 4 * 480_000, `the feed ended early (${received} bytes read)`);
      } finally {
        await local.close();
      }
    });

    it('sends a client that keeps up two events of 900 kB written together, without a cut', async () => {
      const { local, metrics, socket } = await pausedFeed(60, { bodyLimit: 4 << 20, maxRecordBytes: 4 << 20 });
      try {
        socket.setEncoding('latin1');
        let text = '';
        socket.on('data', (chunk: string) => {
          text += chunk;
        });
        socket.resume();
        // One transaction, so one batch handed to the feed at once: the second event is
        // written while most of the first still waits (more than a MiB in all).
        const large = { big: Array.from({ length: 110_000 }, (_, i) => 1_000_000 + i) };
        const made = await local.inject({ method: 'POST', url: '/product/', payload: [large, large] });
        assert.equal(made.statusCode, 201);
        while ((text.match(/event: created/g) ?? []).length < 2 && !socket.destroyed) await sleep(10);
        assert.equal((text.match(/event: created/g) ?? []).length, 2);
        assert.doesNotMatch(await metrics(), /change_feed_cuts_total\{collection="products",reason="buffer"\}/);
      } finally {
        socket.destroy();
        await local.close();
      }
    });

    it('cuts off a client that leaves what it was sent unread for two heartbeats', async () => {
      // Heartbeats 50 ms apart: the cut comes 100 to 150 ms after the event.
      const { local, metrics, cutFor } = await pausedFeed(0.05);
      try {
        // One event: more than the kernel takes, less than the MiB that would cut the client off.
        // (pausedFeed waited for the feed to count as open; the cut may come before the POST answers.)
        assert.equal((await send('POST', '/product/', { name: 'stall', big })).status, 201);
        const received = await cutFor('stall');
        assert.doesNotMatch(await metrics(), /restock_change_feeds_open\{collection="products"\} [1-9]/);
        assert.ok(received < 480_000, `the event was read whole (${received} bytes)`);
      } finally {
        await local.close();
      }
    });

    it('starts with a reset past what the log keeps, then goes on from what it holds', async () => {
      await send('POST', '/user/', { name: 'old' });
      const { last } = await store.changes.bounds('users');
      assert.ok((await store.changes.trim(new Date(Date.now() + 60_000))) > 0);
      await send('POST', '/user/', { name: 'new' });
      const feed = await openEventStream(`${origin}/users/events/?since=1`);
      try {
        const [reset, next] = await feed.take(2);
        assert.equal(reset?.event, 'reset');
        assert.equal(next?.event, 'created');
        assert.equal(Number(next?.id), last + 1);
        assert.equal(record(next as StreamEvent).name, 'new');
      } finally {
        await feed.close();
      }
    });

    it('takes the API key from access_token, for EventSource, and never logs it', async () => {
      const logged: string[] = [];
      const keyed = await buildApp({
        config: defaultConfig({
          databaseUrl: db.url,
          maxEventLoopDelay: 0,
          apiKeys: parseApiKeys(`reader:read:${KEY}`),
        }),
        store,
        logStream: { write: (line: string) => logged.push(line) },
      });
      try {
        const at = await keyed.listen({ host: '127.0.0.1', port: 0 });
        assert.equal((await fetch(`${at}/users/events/`)).status, 401);
        assert.equal((await fetch(`${at}/users/events/?access_token=wrong`)).status, 401);
        assert.equal((await fetch(`${at}/users/?access_token=${KEY}`)).status, 401, 'only feeds take it');
        // However the name is spelled: the query parser decodes each to access_token.
        for (const name of ['access_token', 'access%5Ftoken', '%61ccess_token', 'ACCESS_TOKEN']) {
          const feed = await openEventStream(`${at}/users/events/?${name}=${KEY}`);
          assert.equal(feed.status, name === 'ACCESS_TOKEN' ? 401 : 200, name);
          await feed.close();
        }
      } finally {
        await keyed.close();
      }
      assert.ok(logged.some((line) => line.includes('access_token=[redacted]')));
      assert.ok(!logged.some((line) => line.includes(KEY)));
    });

    it('keeps a quiet feed open with comments, and refuses what does not apply to a feed', async () => {
      const feed = await openEventStream(`${origin}/users/events/`);
      try {
        assert.equal(await feed.comment(), 'heartbeat');
      } finally {
        await feed.close();
      }
      for (const query of ['?sort=name', '?since=-1', '?q=ada', '?cursor=x']) {
        const refused = await fetch(`${origin}/users/events/${query}`);
        assert.equal(refused.status, 400, query);
        assert.match(String(refused.headers.get('content-type')), /problem\+json/);
      }
    });

    itKeptTheDocument(checked);
  });

  // PostgreSQL scales out as instances on one database; SQLite as workers on one file.
  const across = kind.name === 'postgres' ? 'two instances' : 'two workers of one instance';
  describe(`the change feed across server processes (${kind.name})`, () => {
    it(`delivers 1,000 writes made through ${across} to 20 feeds on both, in order, once each`, async () => {
      const db = await kind.create();
      const servers =
        kind.name === 'postgres'
          ? [await startServer({ DATABASE_URL: db.url }), await startServer({ DATABASE_URL: db.url })]
          : [await startServer({ DATABASE_URL: db.url, WORKERS: '2' })];
      if (servers.length === 1) await waitForWorkers(servers[0] as RunningServer, 2);
      // With workers, the kernel hands each new connection to one of them in turn.
      const origins = [servers[0]?.url, servers.at(-1)?.url] as string[];
      // A feed still open when its server stops.
      const idle = await openEventStream(`${origins[1]}/users/events/`);
      try {
        const feeds = await Promise.all(
          Array.from({ length: 20 }, (_, i) => openEventStream(`${origins[i % 2]}/products/events/?since=0`)),
        );
        let written = 0;
        const write = async (lane: number) => {
          for (let i = written++; i < 1000; i = written++) {
            const response = await fetch(`${origins[(lane + i) % 2]}/product/`, {
              method: 'POST',
              // A fresh connection for some, so that workers share the writes as well.
              headers: { ...JSON_HEADERS, ...(i % 10 === 0 && { connection: 'close' }) },
              body: JSON.stringify({ name: `p${i}`, lane }),
            });
            assert.equal(response.status, 201);
            await response.arrayBuffer();
          }
        };
        const writing = Promise.all(Array.from({ length: 10 }, (_, lane) => write(lane)));
        // One subscriber drops out mid-stream and resumes from its last id while writes go on.
        const first = await feeds[0]?.take(300);
        await feeds[0]?.close();
        const resumed = await openEventStream(`${origins[1]}/products/events/`, {
          'last-event-id': String(first?.at(-1)?.id),
        });
        await writing;
        const streams = [...(first ? [first.concat(await resumed.take(700))] : [])];
        for (const feed of feeds.slice(1)) streams.push(await feed.take(1000));
        const { body: all } = await fetch(`${origins[0]}/products/?limit=1000`).then(async (r) => ({
          body: await r.json(),
        }));
        const byId = new Map((all as { id: number }[]).map((r) => [r.id, JSON.stringify(r)]));
        for (const events of streams) {
          assert.deepEqual(
            events.map((e) => Number(e.id)),
            Array.from({ length: 1000 }, (_, i) => i + 1),
            'every change once, in order',
          );
          for (const event of events) assert.equal(canonical(event.data), canonical(byId.get(record(event).id) ?? ''));
        }
        await Promise.all([resumed, ...feeds.slice(1)].map((feed) => feed.close()));
        // Both exit 0 on SIGTERM, one with a feed still open; then their logs are whole.
        for (const server of servers) assert.equal(await server.stop(), 0);
        const served = (path: string) =>
          new Set(
            servers
              .flatMap((server) =>
                server.output.map((line) => JSON.parse(line) as { pid: number; req?: { url: string } }),
              )
              .filter((line) => line.req?.url.startsWith(path))
              .map((line) => line.pid),
          );
        assert.equal(served('/product/').size, 2, 'both processes took writes');
        assert.equal(served('/products/events/').size, 2, 'both processes served feeds');
      } finally {
        for (const server of servers) await server.stop();
        await idle.close();
        await db.drop();
      }
    });
  });
}

/** JSON text with its keys in one order (PostgreSQL's jsonb orders them its own way). */
function canonical(text: string): string {
  const value = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** How many statements on `client`'s database wait for a table's lock (not an advisory one, as the sequencers take). */
async function lockWaiters(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'relation'`,
  );
  return rows[0]?.n ?? 0;
}

/** Polls `done` until it holds (at most 100 times, 50 ms apart). */
async function waitFor(done: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await done()) return;
    await sleep(50);
  }
  assert.fail('the condition never held');
}
