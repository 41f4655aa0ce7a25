/**
 * The change feed hears this process's writes at their commit, not at a timer: with every
 * interval timer of the process held still (node:test's mock timers), so that no poll of
 * the log ever runs, a feed still gets each create, update, delete and batch, in commit
 * order. On SQLite the commit wakes the feeds; on PostgreSQL the log's notification does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { openEventStream } from './helpers/event-stream.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

for (const kind of STORE_KINDS) {
  describe(`the change feed at the commit (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let origin = '';

    before(async () => {
      // Before the app: every setInterval it makes (the log's poll among them) never fires.
      mock.timers.enable({ apis: ['setInterval'] });
      db = await kind.create();
      const config = defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0, rateLimitMax: 0 });
      app = await buildApp({ config, logStream: false });
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
      mock.timers.reset();
    });

    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: JSON_HEADERS,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      assert.ok(response.ok, `${method} ${path}: ${response.status}`);
      return (await response.json().catch(() => undefined)) as { id: number } | undefined;
    };

    it('sends each write of this process with no poll, in commit order', async () => {
      const feed = await openEventStream(`${origin}/products/events/`);
      try {
        const made = await send('POST', '/product/', { name: 'Kettle', price: 30 });
        const [created] = await feed.take(1);
        assert.equal(created?.event, 'created');
        assert.equal(JSON.parse(created?.data ?? '{}').id, made?.id);

        await send('PUT', `/product/${made?.id}/`, { name: 'Kettle', price: 25 });
        await send('POST', '/batch/', [
          { method: 'POST', path: '/product/', body: { name: 'Teapot', price: 20 } },
          { method: 'DELETE', path: `/product/${made?.id}/` },
        ]);
        const events = await feed.take(3);
        assert.deepEqual(
          events.map((event) => event.event),
          ['updated', 'created', 'deleted'],
        );
        const ids = [created, ...events].map((event) => Number(event?.id));
        assert.deepEqual(ids, [ids[0] as number, ...[1, 2, 3].map((n) => (ids[0] as number) + n)], 'numbered in order');
      } finally {
        await feed.close();
      }
    });
  });
}
