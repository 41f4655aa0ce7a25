/**
 * The change feed against clients that misbehave, on both stores: one that leaves in the
 * middle of its catch-up, and the server that must keep answering everyone else.
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
import { type Config, defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { eventFor, feedView } from '../src/records/change-event.js';
import { ChangeHubs } from '../src/records/change-hub.js';
import { openStore } from '../src/store/open-store.js';
import type { Change, ChangeLog, Condition, Store } from '../src/store/store.js';
import { catalogOf } from './helpers/catalog.js';
import { openEventStream } from './helpers/event-stream.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/** Changes the suite puts in the log before its feeds start from the beginning. */
const BACKLOG = 500;
const catalog = catalogOf(['users', 'products']);

/** Resolves once `check` holds, looking again every 10 ms. */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await sleep(10);
}

for (const kind of STORE_KINDS) {
  describe(`the change feed against hostile clients (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    let app: FastifyInstance;
    let config: Config;
    let port = 0;
    let start = 0;

    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, catalog);
      config = defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0, rateLimitMax: 0 });
      app = await buildApp({ config, store, logStream: false });
      port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
      start = (await store.changes.bounds('users')).last;
      // Records of about 1 KB, so that a catch-up fills a socket's buffers.
      const users = Array.from({ length: BACKLOG }, (_, i) => ({ name: `user ${i}`, bio: 'x'.repeat(1000) }));
      const created = await app.inject({ method: 'POST', url: '/user/', payload: users });
      assert.equal(created.statusCode, 201, created.body);
      // PostgreSQL numbers changes after they commit: wait until the backlog is in the log.
      await until(async () => (await store.changes.read('users', start + BACKLOG - 1, 1)).length > 0);
    });
    after(async () => {
      await app?.close();
      await store?.close();
      await db?.drop();
    });

    it('stops reading the log once a subscriber ends during its catch-up', async () => {
      let reads = 0;
      let failure: unknown;
      const log: ChangeLog = {
        read: (collection, from, limit) => {
          // Far more reads than the backlog takes: the catch-up went on after the end.
          if (++reads > BACKLOG) throw new Error('the catch-up read on after its subscriber ended');
          return store.changes.read(collection, from, limit);
        },
        readNew: (collection, from) => store.changes.readNew(collection, from),
        bounds: (collection) => store.changes.bounds(collection),
        trim: (before) => store.changes.trim(before),
        watch: (wake) => store.changes.watch(wake),
      };
      const hubs = new ChangeHubs(log, catalog);
      let stopped: Promise<void> | undefined;
      let ended = false;
      const unsubscribe = hubs.subscribe(catalog.get('users'), {
        position: start,
        // As a feed does: once it has ended it takes nothing, and its position stays.
        async take(changes: readonly Change[]) {
          if (ended) return;
          this.position = (changes.at(-1) as Change).seq;
          ended = true;
          stopped = unsubscribe();
        },
        ready: async () => {},
        fail: (error) => {
          failure = error;
        },
      });
      await until(() => stopped !== undefined || failure !== undefined);
      await stopped;
      await hubs.close();
      assert.equal(failure, undefined);
      assert.equal(reads, 1, 'one read, the one the subscriber ended in');
    });

    it('keeps answering once a client leaves in the middle of its catch-up', async () => {
      // Over a Unix socket, whose kernel buffer (about 200 kB) holds less than the backlog:
      // the feed is still catching up when its client goes.
      const path = join(mkdtempSync(join(tmpdir(), 'restock-feed-')), 'socket');
      const local = await buildApp({ config, store, logStream: false });
      await local.listen({ path });
      try {
        const socket = connect(path);
        await once(socket, 'connect');
        socket.write(`GET /users/events/?since=${start} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`);
        await once(socket, 'data');
        socket.destroy();
        const open = /restock_change_feeds_open\{collection="users"\} [1-9]/;
        await until(async () => !open.test((await local.inject({ url: '/metrics' })).body));
        assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
        assert.equal((await fetch(`http://127.0.0.1:${port}/user/1/`)).status, 200);
      } finally {
        // Waits for the feed's reader to stop: it never did once its client left mid-catch-up.
        await local.close();
      }
    });

    it('caps the feeds one client and all clients may hold open, and gives a place back as a feed ends', async () => {
      for (const [caps, status, kind] of [
        [{ eventsMaxFeedsPerClient: 2, eventsMaxFeeds: 0 }, 429, 'too-many-feeds'],
        [{ eventsMaxFeedsPerClient: 0, eventsMaxFeeds: 2 }, 503, 'overloaded'],
      ] as const) {
        const capped = await buildApp({ config: { ...config, ...caps }, store, logStream: false });
        const at = await capped.listen({ host: '127.0.0.1', port: 0 });
        const feeds = [await openEventStream(`${at}/users/events/`), await openEventStream(`${at}/users/events/`)];
        try {
          const refused = await fetch(`${at}/products/events/`);
          assert.equal(refused.status, status);
          assert.equal(refused.headers.get('retry-after'), '1');
          assert.match(((await refused.json()) as { type: string }).type, new RegExp(`/${kind}$`));
          await feeds.pop()?.close();
          const open = /restock_change_feeds_open\{collection="users"\} 2/;
          await until(async () => !open.test((await capped.inject({ url: '/metrics' })).body));
          feeds.push(await openEventStream(`${at}/products/events/`));
          assert.equal(feeds[1]?.status, 200, 'the place was given back');
        } finally {
          for (const feed of feeds) await feed.close();
          await capped.close();
        }
      }
    });

    it('answers HEAD with the headers alone, holding nothing open', async () => {
      const head = await fetch(`http://127.0.0.1:${port}/users/events/`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.match(String(head.headers.get('content-type')), /^text\/event-stream/);
      assert.doesNotMatch(
        (await app.inject({ url: '/metrics' })).body,
        /restock_change_feeds_open\{collection="users"\} [1-9]/,
      );
    });

    it('carries the headers every response does, and is counted with the requests as it ends', async () => {
      const limited = await buildApp({ config: { ...config, rateLimitMax: 100 }, store, logStream: false });
      const at = await limited.listen({ host: '127.0.0.1', port: 0 });
      try {
        const controller = new AbortController();
        const feed = await fetch(`${at}/users/events/`, {
          headers: { origin: 'https://app.example' },
          signal: controller.signal,
        });
        assert.equal(feed.status, 200);
        assert.equal(feed.headers.get('access-control-allow-origin'), '*');
        assert.equal(feed.headers.get('x-content-type-options'), 'nosniff');
        assert.ok(feed.headers.get('ratelimit-limit') ?? feed.headers.get('x-ratelimit-limit'), 'a rate limit header');
        assert.ok(feed.headers.get('x-request-id'));
        controller.abort();
        const counted =
          /restock_http_requests_total\{route="\/users\/events\/",method="GET",tunnelled="false",status="200"\} 1/;
        await until(async () => counted.test((await limited.inject({ url: '/metrics' })).body));
      } finally {
        await limited.close();
      }
    });

    it('starts with a reset from the last change for an id past the end of the log', async () => {
      const { last } = await store.changes.bounds('products');
      // As a client holds after the database was restored from an older backup.
      const feed = await openEventStream(`http://127.0.0.1:${port}/products/events/`, {
        'last-event-id': String(last + 500),
      });
      try {
        const [reset] = await feed.take(1);
        assert.equal(reset?.event, 'reset');
        assert.deepEqual(JSON.parse(reset?.data ?? ''), { from: last });
        await app.inject({ method: 'POST', url: '/product/', payload: { name: 'after the restore' } });
        const [created] = await feed.take(1);
        assert.equal(Number(created?.id), last + 1);
      } finally {
        await feed.close();
      }
    });

    it('encodes an event once, whatever number of feeds send it', () => {
      const change: Change = {
        seq: 7,
        kind: 'created',
        record: { id: 1, data: '{"name":"Ada"}', createdAt: 'c', updatedAt: 'u', version: 1 },
      };
      const first = eventFor(change);
      assert.equal(
        first?.toString(),
        'id: 7\nevent: created\ndata: {"id":1,"name":"Ada","createdAt":"c","updatedAt":"u"}\n\n',
      );
      assert.equal(eventFor(change, feedView([])), first, 'the same bytes, not a copy');
    });

    it('decides a change once for every feed that sees the collection alike', () => {
      const change: Change = {
        seq: 8,
        kind: 'created',
        record: { id: 2, data: '{"name":"Ada","owner":3}', createdAt: 'c', updatedAt: 'u', version: 1 },
      };
      // A rule's condition as each feed of one account gets it (built afresh per feed),
      // counting how often a decision reads its value.
      let reads = 0;
      const ownedBy = (owner: number): Condition => ({
        field: { path: ['owner'] },
        op: 'eq',
        get value() {
          reads++;
          return owner;
        },
      });
      const hers = Array.from({ length: 100 }, () => feedView([], ownedBy(3)));
      const others = Array.from({ length: 100 }, () => feedView([], ownedBy(4)));
      reads = 0;
      const events = [...hers, ...others].map((view) => eventFor(change, view));
      assert.equal(reads, 2, 'one decision for each of the two views');
      assert.ok(
        events.slice(0, 100).every((event) => event === eventFor(change)),
        'hers: the shared bytes',
      );
      assert.ok(
        events.slice(100).every((event) => event === undefined),
        'the others: nothing',
      );
    });
  });
}
