/** SPEC §8 and §11: problem documents, health, readiness, the index, request ids and logs. */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { PROBLEM_TYPES } from '../src/api/problem-types.js';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { body, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { type Credential, injectAs, withKeys } from './helpers/keys.js';
import { rawExchange } from './helpers/raw-http.js';
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
        collections: Record<
          string,
          { description: string; list: string; create: string; item: string; events: string }
        >;
      }>(response);
      assert.deepEqual(index.collections.users, {
        description: index.collections.users?.description,
        list: '/users/',
        create: '/user/',
        item: '/user/{id}/',
        events: '/users/events/',
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

  describe(`security headers on every response (${kind.name})`, () => {
    const ctx = useApp(kind, withKeys());
    const limited = useApp(kind, withKeys({ rateLimitMax: 1 }));

    it('X-Content-Type-Options: nosniff everywhere, problems and 404s included; Referrer-Policy on HTML', async () => {
      const made = await injectAs(ctx.app, 'write', {
        method: 'POST',
        url: '/user/',
        headers: JSON_HEADERS,
        payload: {},
      });
      const etag = String(made.headers.etag);
      const requests: [Credential, InjectOptions, number][] = [
        ['none', { url: '/' }, 200],
        ['none', { url: '/', headers: { accept: 'text/html' } }, 200],
        ['none', { url: '/docs/' }, 200],
        ['none', { url: '/console/console.js' }, 200],
        ['none', { url: '/openapi.json' }, 200],
        ['none', { url: '/problems/not-found' }, 200],
        ['read', { url: '/users/' }, 200],
        ['read', { url: '/metrics' }, 200],
        ['read', { method: 'HEAD', url: '/users/' }, 200],
        ['read', { method: 'OPTIONS', url: '/users/' }, 204],
        ['read', { url: '/user/1/', headers: { 'if-none-match': etag } }, 304],
        ['write', { method: 'DELETE', url: '/user/1/', headers: { prefer: 'return=minimal' } }, 204],
        ['none', { url: '/users/' }, 401],
        ['read', { method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: {} }, 403],
        ['read', { url: '/user/999/' }, 404],
        ['read', { url: '/nowhere/' }, 404],
        ['none', { url: '/%zz/' }, 400],
        ['read', { url: '/users/?limit=0' }, 400],
        ['read', { url: '/users/', headers: { 'x-http-method': 'FOO' } }, 400],
        ['write', { method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: '{' }, 400],
        ['write', { method: 'POST', url: '/user/', headers: { 'content-type': 'text/plain' }, payload: 'x' }, 415],
        ['read', { url: '/user/' }, 405],
      ];
      for (const [credential, request, status] of requests) {
        const response = await injectAs(ctx.app, credential, request);
        const label = `${request.method ?? 'GET'} ${request.url} (${credential} key)`;
        assert.equal(response.statusCode, status, `${label}: ${response.body}`);
        assert.equal(response.headers['x-content-type-options'], 'nosniff', label);
        const html = String(response.headers['content-type']).startsWith('text/html');
        assert.equal(response.headers['referrer-policy'], html ? 'no-referrer' : undefined, label);
      }
      const pages = await Promise.all(
        [{ url: '/', headers: { accept: 'text/html' } }, { url: '/docs/' }].map((r) => ctx.app.inject(r)),
      );
      for (const page of pages) assert.match(String(page.headers['content-type']), /^text\/html/);

      await injectAs(limited.app, 'read', { url: '/users/' });
      const refused = await injectAs(limited.app, 'read', { url: '/users/' });
      problem(refused, 429, 'too-many-requests');
      assert.equal(refused.headers['x-content-type-options'], 'nosniff');
    });

    it('nosniff also on what Node refuses before a request exists (431, a request that is not HTTP)', async () => {
      await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = ctx.app.server.address() as AddressInfo;
      for (const [bytes, status] of [
        [`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
        ['NOT HTTP AT ALL\r\n\r\n', 400],
      ] as const) {
        const response = await rawExchange(port, Buffer.from(bytes));
        assert.equal(response?.status, status);
        assert.equal(response?.headers['x-content-type-options'], 'nosniff');
      }
    });
  });

  describe(`logs (${kind.name})`, () => {
    it('record the request id with the wire and the effective method', async () => {
      const db = await kind.create();
      const sink = logSink();
      const app = await buildApp({
        config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url }),
        logStream: sink.stream,
      });
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
    // The write waits for the lock between turns of the event loop, so load shedding (on, as
    // by default) has nothing to answer: the 503 is the store's.
    const config = defaultConfig({ databaseUrl: db.url });
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
