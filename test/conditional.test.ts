/** SPEC §7 on every store: ETags, If-None-Match, If-Match (tunnelled too) and Idempotency-Key. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { fingerprintOf } from '../src/records/idempotency.js';
import { openStore } from '../src/store/open-store.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { body, create, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { catalogOf } from './helpers/catalog.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`conditional requests (${kind.name})`, () => {
    const ctx = useApp(kind, {}, { contract: true });
    const put = (id: number, payload: object, headers: Record<string, string> = {}) =>
      ctx.app.inject({ method: 'PUT', url: `/user/${id}/`, headers: { ...JSON_HEADERS, ...headers }, payload });

    it('answers 304 to If-None-Match on GET and HEAD, and 200 once the record changed', async () => {
      const made = await create(ctx.app, 'user', { name: 'a' });
      const etag = String((await ctx.app.inject({ url: `/user/${made.id}/` })).headers.etag);
      for (const method of ['GET', 'HEAD'] as const) {
        const cached = await ctx.app.inject({ method, url: `/user/${made.id}/`, headers: { 'if-none-match': etag } });
        assert.equal(cached.statusCode, 304, method);
        assert.equal(cached.headers.etag, etag);
      }
      await put(made.id, { name: 'b' });
      const fresh = await ctx.app.inject({ url: `/user/${made.id}/`, headers: { 'if-none-match': etag } });
      assert.equal(fresh.statusCode, 200);
      assert.notEqual(fresh.headers.etag, etag);
    });

    it('writes with a current If-Match, and refuses a stale one with 412, writing nothing', async () => {
      const made = await create(ctx.app, 'user', { name: 'a' });
      const first = String((await ctx.app.inject({ url: `/user/${made.id}/` })).headers.etag);
      const changed = await put(made.id, { name: 'b' }, { 'if-match': first });
      assert.equal(changed.statusCode, 200);
      const second = String(changed.headers.etag);
      problem(await put(made.id, { name: 'c' }, { 'if-match': first }), 412, 'precondition-failed');
      problem(await put(made.id, { name: 'c' }, { 'if-match': `W/${second}` }), 412, 'precondition-failed');
      const stale = await ctx.app.inject({
        method: 'DELETE',
        url: `/user/${made.id}/`,
        headers: { 'if-match': first },
      });
      problem(stale, 412, 'precondition-failed');
      assert.equal(body(await ctx.app.inject({ url: `/user/${made.id}/` }))?.name, 'b', 'nothing written');
      assert.equal((await put(made.id, { name: 'd' }, { 'if-match': `"1-1", ${second}` })).statusCode, 200);
      assert.equal((await put(made.id, { name: 'e' }, { 'if-match': '*' })).statusCode, 200);
      problem(await put(999999, { name: 'x' }, { 'if-match': '*' }), 412, 'precondition-failed');
      const current = String((await ctx.app.inject({ url: `/user/${made.id}/` })).headers.etag);
      const gone = await ctx.app.inject({
        method: 'DELETE',
        url: `/user/${made.id}/`,
        headers: { 'if-match': current },
      });
      assert.equal(gone.statusCode, 200);
    });

    it('checks If-Match on tunnelled writes exactly as on real ones', async () => {
      const made = await create(ctx.app, 'user', { name: 'a' });
      const etag = String((await ctx.app.inject({ url: `/user/${made.id}/` })).headers.etag);
      const tunnelled = (wire: 'GET' | 'POST', method: string, ifMatch: string) =>
        ctx.app.inject({
          method: wire,
          url: `/user/${made.id}/`,
          headers: { ...JSON_HEADERS, 'x-http-method-override': method, 'if-match': ifMatch },
          payload: wire === 'POST' ? { name: 'tunnelled' } : undefined,
        });
      problem(await tunnelled('POST', 'PUT', '"1-999"'), 412, 'precondition-failed');
      problem(await tunnelled('GET', 'DELETE', '"1-999"'), 412, 'precondition-failed');
      const changed = await tunnelled('POST', 'PUT', etag);
      assert.equal(changed.statusCode, 200);
      assert.equal((await tunnelled('GET', 'DELETE', String(changed.headers.etag))).statusCode, 200);
    });

    it('checks If-Match on PATCH, sent or tunnelled: 412 when stale, 200 when current', async () => {
      const made = await create(ctx.app, 'user', { name: 'a', keep: 1 });
      let current = String((await ctx.app.inject({ url: `/user/${made.id}/` })).headers.etag);
      const patches = {
        sent: (headers: Record<string, string>) => ({ method: 'PATCH' as const, headers }),
        tunnelled: (headers: Record<string, string>) => ({
          method: 'POST' as const,
          headers: { ...headers, 'HTTP-X-HTTP-METHOD': 'PATCH' },
        }),
      };
      for (const [how, request] of Object.entries(patches)) {
        const patch = (ifMatch: string) =>
          ctx.app.inject({
            ...request({ 'content-type': 'application/merge-patch+json', 'if-match': ifMatch }),
            url: `/user/${made.id}/`,
            payload: { name: how },
          });
        const changed = await patch(current);
        assert.equal(changed.statusCode, 200, `${how}: ${changed.body}`);
        assert.deepEqual([body(changed).name, body(changed).keep], [how, 1]);
        const stale = current;
        current = String(changed.headers.etag);
        assert.notEqual(current, stale);
        problem(await patch(stale), 412, 'precondition-failed');
        const read = await ctx.app.inject({ url: `/user/${made.id}/` });
        assert.equal(body(read).name, how, `${how}: nothing written`);
        assert.equal(read.headers.etag, current);
      }
    });

    it('lets exactly one of ten concurrent writers with the same If-Match win', async () => {
      const made = await create(ctx.app, 'user', { n: 0 });
      const etag = String((await ctx.app.inject({ url: `/user/${made.id}/` })).headers.etag);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, n) => put(made.id, { n }, { 'if-match': etag })),
      );
      const statuses = results.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [200, ...Array(9).fill(412)]);
    });

    itKeptTheDocument(ctx);
  });

  describe(`Idempotency-Key (${kind.name})`, () => {
    const ctx = useApp(kind, {}, { contract: true });
    const post = (key: string | undefined, payload: object, extra: Record<string, string> = {}) =>
      ctx.app.inject({
        method: 'POST',
        url: '/user/',
        headers: { ...JSON_HEADERS, ...(key === undefined ? {} : { 'idempotency-key': key }), ...extra },
        payload,
      });
    const count = async (filter: string) =>
      Number(
        (await ctx.app.inject({ url: `/users/?${filter}`, headers: { prefer: 'count=exact' } })).headers[
          'x-total-count'
        ],
      );

    it('replays the first response to a retry, with Idempotent-Replayed, creating one record', async () => {
      const first = await post('key-1', { order: 'k1' });
      assert.equal(first.statusCode, 201);
      const again = await post('key-1', { order: 'k1' });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.equal(again.headers.location, first.headers.location);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.equal(await count('order=k1'), 1);
      // Through the plural alias and tunnelled through GET: the same operation, so replayed.
      const alias = await ctx.app.inject({
        method: 'POST',
        url: '/users',
        headers: { ...JSON_HEADERS, 'idempotency-key': 'key-1' },
        payload: { order: 'k1' },
      });
      assert.equal(alias.headers['idempotent-replayed'], 'true');
      const tunnelled = await ctx.app.inject({
        method: 'GET',
        url: '/user/',
        headers: { ...JSON_HEADERS, 'idempotency-key': '"key-1"', 'http-x-http-method': 'POST' },
        payload: JSON.stringify({ order: 'k1' }),
      });
      assert.equal(tunnelled.statusCode, 201, tunnelled.body);
      assert.equal(tunnelled.headers['idempotent-replayed'], 'true');
      assert.equal(await count('order=k1'), 1);
    });

    it('refuses the same key with another payload (422), and a bad key (400)', async () => {
      assert.equal((await post('key-2', { order: 'k2' })).statusCode, 201);
      problem(await post('key-2', { order: 'other' }), 422, 'idempotency-key-reused');
      for (const bad of ['', 'x'.repeat(256), 'naïve', 'two words']) {
        problem(await post(bad, { order: 'bad' }), 400, 'invalid-idempotency-key');
      }
      assert.equal(await count('order=bad'), 0);
    });

    it('answers 409 while the first request with the key is still running', async () => {
      const payload = { order: 'k3' };
      // The claim a first request holds while it runs, made directly in the store.
      const direct = await openStore(ctx.db.url, catalogOf(['users', 'products']));
      try {
        const what = { method: 'POST', path: '/user/', body: JSON.stringify(payload) };
        const fingerprint = fingerprintOf(await direct.idempotency.fingerprintKey(), what);
        // A request without a key is its address's (inject's is 127.0.0.1).
        const scope = 'ip:127.0.0.1';
        assert.equal((await direct.idempotency.claim(scope, 'key-3', fingerprint, 't', 60_000)).state, 'claimed');
      } finally {
        await direct.close();
      }
      const busy = await post('key-3', payload);
      problem(busy, 409, 'idempotency-key-in-use');
      assert.equal(busy.headers['retry-after'], '1');
      assert.equal(await count('order=k3'), 0);
    });

    it('creates exactly one record from twenty concurrent duplicates', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => post('key-4', { order: 'k4' })));
      const statuses = new Set(results.map((r) => r.statusCode));
      for (const status of statuses) assert.ok(status === 201 || status === 409, String(status));
      const ids = new Set(results.filter((r) => r.statusCode === 201).map((r) => body(r).id));
      assert.equal(ids.size, 1, 'every 201 names the same record');
      assert.equal(await count('order=k4'), 1);
    });

    it('forgets the record with its delete: a retry then gets 410, and no copy of it is kept', async () => {
      const secret = 'k6-secret-content';
      const first = await post('key-6', { order: 'k6', secret });
      const kept = await post('key-7', { order: 'k7', secret: 'k7-kept' });
      const keptId = body(kept).id as number;
      // A delete refused by its precondition deletes nothing, and the key keeps its copy.
      const stale = await ctx.app.inject({
        method: 'DELETE',
        url: `/user/${keptId}/`,
        headers: { 'if-match': '"9-9"' },
      });
      problem(stale, 412, 'precondition-failed');
      assert.equal((await post('key-7', { order: 'k7', secret: 'k7-kept' })).statusCode, 201);

      const id = body(first).id as number;
      const deleted = await ctx.app.inject({ method: 'DELETE', url: `/user/${id}/`, headers: { 'if-match': '*' } });
      assert.equal(deleted.statusCode, 200);
      const retry = problem(await post('key-6', { order: 'k6', secret }), 410, 'idempotent-record-gone');
      assert.match(retry.detail, new RegExp(`record ${id} of users`));
      assert.doesNotMatch(JSON.stringify(retry), new RegExp(secret));
      assert.equal(await count('order=k6'), 0, 'the retry created nothing');
      problem(await post('key-6', { order: 'other' }), 422, 'idempotency-key-reused');
      const stored = await storedResponses(kind.name, ctx.db.url);
      assert.equal(
        stored.some((text) => text.includes(secret)),
        false,
        'no copy of the deleted record is kept',
      );
      assert.equal(stored.filter((text) => text.includes('k7-kept')).length, 1, 'the other key keeps its own');
      const replay = await post('key-7', { order: 'k7', secret: 'k7-kept' });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, kept.body);
    });

    it('is shared by every instance on the database', async () => {
      const other = await buildApp({
        config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: ctx.db.url }),
        logStream: false,
      });
      try {
        const first = await post('key-5', { order: 'k5' });
        const elsewhere = await other.inject({
          method: 'POST',
          url: '/user/',
          headers: { ...JSON_HEADERS, 'idempotency-key': 'key-5' },
          payload: { order: 'k5' },
        });
        assert.equal(elsewhere.headers['idempotent-replayed'], 'true');
        assert.equal(elsewhere.body, first.body);
      } finally {
        await other.close();
      }
    });

    itKeptTheDocument(ctx);
  });
}

/** Every response the key table keeps, read from the database itself. */
async function storedResponses(store: 'sqlite' | 'postgres', url: string): Promise<string[]> {
  const sql = 'SELECT record FROM idempotency_keys WHERE record IS NOT NULL';
  if (store === 'sqlite') {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare(sql).pluck().all() as string[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ record: string }>(sql)).rows.map((row) => row.record);
  } finally {
    await client.end();
  }
}
