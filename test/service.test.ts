/** SPEC §8 and §11: problem documents, health, readiness, the index, request ids and logs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { buildApp } from '../src/app.js';
import { defaultConfig } from '../src/config.js';
import { PROBLEM_TYPES } from '../src/http/problem.js';
import { body, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { STORE_KINDS, sqliteKind } from './helpers/stores.js';

/** Collects the app's JSON log lines. */
function logSink() {
  const lines: Record<string, unknown>[] = [];
  return { lines, stream: { write: (line: string) => lines.push(JSON.parse(line)) } };
}

for (const kind of STORE_KINDS) {
  describe(`service routes (${kind.name})`, () => {
    const ctx = useApp(kind);

    it('answers /healthz and /readyz', async () => {
      const health = await ctx.app.inject({ url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.deepEqual(body(health), { status: 'ok' });
      const ready = await ctx.app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.equal(body(ready).store, kind.name);
    });

    it('serves a JSON index of links at /', async () => {
      const response = await ctx.app.inject({ url: '/' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      const index = body<{
        collections: Record<string, { description: string; list: string; create: string; item: string }>;
      }>(response);
      assert.deepEqual(index.collections.users, {
        description: index.collections.users?.description,
        list: '/users/',
        create: '/user/',
        item: '/user/{id}/',
      });
      assert.equal(index.collections.products?.list, '/products/');
    });

    it('describes every problem type at its type URI', async () => {
      for (const [kind, info] of Object.entries(PROBLEM_TYPES)) {
        const response = await ctx.app.inject({ url: `/problems/${kind}` });
        assert.equal(response.statusCode, 200);
        assert.equal(body(response).status, info.status);
        assert.equal(body(response).type, `/problems/${kind}`);
      }
    });

    it('echoes a sane X-Request-Id and makes one otherwise', async () => {
      const given = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
      assert.equal(given.headers['x-request-id'], 'abc-123');
      const made = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id\twith "quotes"' } });
      assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      const none = await ctx.app.inject({ url: '/healthz' });
      assert.notEqual(none.headers['x-request-id'], made.headers['x-request-id']);
    });

    it('answers 405 on service paths too', async () => {
      const response = await ctx.app.inject({ method: 'POST', url: '/healthz', headers: JSON_HEADERS, payload: {} });
      problem(response, 405);
      assert.equal(response.headers.allow, 'GET, HEAD, OPTIONS');
    });
  });

  describe(`logs (${kind.name})`, () => {
    it('record the request id with the wire and the effective method', async () => {
      const db = await kind.create();
      const sink = logSink();
      const app = await buildApp({ config: defaultConfig({ databaseUrl: db.url }), logStream: sink.stream });
      try {
        const created = await app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: {} });
        await app.inject({
          method: 'POST',
          url: `/user/${body(created).id}/`,
          headers: { 'HTTP-X-HTTP-METHOD': 'DELETE', 'x-request-id': 'tunnel-1' },
        });
        const lines = sink.lines.filter((l) => l.reqId === 'tunnel-1');
        assert.equal(lines.length, 1, 'one access-log line per request');
        const [line] = lines;
        assert.equal(line?.msg, 'request completed');
        assert.deepEqual((line?.req as Record<string, unknown>)?.method, 'DELETE');
        assert.deepEqual((line?.req as Record<string, unknown>)?.wireMethod, 'POST');
        assert.equal((line?.res as Record<string, unknown>)?.statusCode, 200);
        assert.equal(typeof line?.responseTime, 'number');
      } finally {
        await app.close();
        await db.drop();
      }
    });
  });

  describe(`unexpected failures (${kind.name})`, () => {
    it('answer 500 without internals, logged under the request id, and the app keeps serving', async () => {
      const db = await kind.create();
      const sink = logSink();
      const app = await buildApp({ config: defaultConfig({ databaseUrl: db.url }), logStream: sink.stream });
      try {
        // A real fault: a route whose handler throws a plain Error, as a bug would.
        app.get('/boom', async () => {
          throw new Error('secret internal detail at /srv/db.sqlite');
        });
        const response = await app.inject({ url: '/boom', headers: { 'x-request-id': 'boom-1' } });
        const parsed = problem(response, 500, 'internal-error');
        assert.doesNotMatch(response.body, /secret|sqlite|Error:/);
        assert.match(parsed.detail, /boom-1/);
        const logged = sink.lines.find((l) => l.reqId === 'boom-1' && l.level === 50);
        assert.match(String((logged?.err as Record<string, unknown>)?.message), /secret internal detail/);
        assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
      } finally {
        await app.close();
        await db.drop();
      }
    });
  });
}

describe('an unavailable database (sqlite)', () => {
  it('answer 503 with Retry-After while the database is locked, and recover by themselves', async () => {
    const db = await sqliteKind.create();
    // better-sqlite3 waits for the lock on the event loop, which load shedding would answer
    // with 503 overloaded for a moment afterwards; this test is about the store, so it is off.
    const config = defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0 });
    const app = await buildApp({ config, logStream: false });
    const locker = new Database(db.url.slice('sqlite:'.length));
    try {
      // A real fault: another process holds the write lock past the busy timeout.
      locker.exec('BEGIN EXCLUSIVE');
      const refused = await app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: {} });
      problem(refused, 503, 'service-unavailable');
      assert.ok(Number(refused.headers['retry-after']) > 0);
      locker.exec('ROLLBACK');
      const accepted = await app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: {} });
      assert.equal(accepted.statusCode, 201);
    } finally {
      locker.close();
      await app.close();
      await db.drop();
    }
  });
});
