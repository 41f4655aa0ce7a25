/**
 * What only PostgreSQL has: a network between restock and its database that can fail. A
 * test's TCP proxy stands between them and cuts it, at rest and in the middle of a statement.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openPostgresDriver } from '../src/store/postgres/postgres-driver.js';
import { sql } from '../src/store/sql/program.js';
import { runCommand, startServer } from './helpers/server.js';
import { POSTGRES_AVAILABLE, postgresKind } from './helpers/stores.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';

const json = { 'content-type': 'application/json' };

describe('outages (postgres)', { skip: !POSTGRES_AVAILABLE && 'PostgreSQL does not answer' }, () => {
  it('answers 503 with Retry-After while the database is cut off, stays up, and recovers by itself', async () => {
    const db = await postgresKind.create();
    const proxy = await startTcpProxy(Number(new URL(db.url).port || 5432));
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    const server = await startServer({
      DATABASE_URL: viaProxy.href,
      DATABASE_CONNECT_TIMEOUT: '1000',
      DATABASE_STATEMENT_TIMEOUT: '2000',
    });
    try {
      const created = await fetch(`${server.url}/user/`, { method: 'POST', headers: json, body: '{"name":"before"}' });
      assert.equal(created.status, 201);
      const { id } = (await created.json()) as { id: number };

      await proxy.cut();
      for (const [method, path, body] of [
        ['GET', `/user/${id}/`, undefined],
        ['GET', '/users/', undefined],
        ['POST', '/user/', '{"name":"during"}'],
        ['PUT', `/user/${id}/`, '{"name":"during"}'],
        ['DELETE', `/user/${id}/`, undefined],
      ] as const) {
        const response = await fetch(`${server.url}${path}`, { method, headers: json, body });
        assert.equal(response.status, 503, `${method} ${path}`);
        assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
        assert.ok(Number(response.headers.get('retry-after')) > 0, 'Retry-After');
      }
      assert.equal((await fetch(`${server.url}/readyz`)).status, 503, 'not ready while cut off');
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'alive while cut off');

      await proxy.restore();
      // The pool drops the broken connections and opens new ones on demand; a few
      // attempts at most, without restarting anything.
      let ready = 0;
      for (let attempt = 0; attempt < 50 && ready !== 200; attempt++) {
        ready = (await fetch(`${server.url}/readyz`)).status;
        if (ready !== 200) await sleep(100);
      }
      assert.equal(ready, 200, 'ready again once the database is back');
      const read = await fetch(`${server.url}/user/${id}/`);
      assert.equal(read.status, 200);
      assert.equal(((await read.json()) as { name: string }).name, 'before', 'nothing written during the outage');
      const after = await fetch(`${server.url}/user/`, { method: 'POST', headers: json, body: '{"name":"after"}' });
      assert.equal(after.status, 201);
      assert.equal(server.process.exitCode, null, 'the process stayed up');
    } finally {
      assert.equal(await server.stop(), 0);
      await proxy.close();
      await db.drop();
    }
  });

  it('fails a transaction whose connection is cut mid-statement as unavailable, and stays up', async () => {
    const db = await postgresKind.create();
    const proxy = await startTcpProxy(Number(new URL(db.url).port || 5432));
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    const timeouts = { connectTimeoutMs: 1000, statementTimeoutMs: 60_000 };
    const { driver } = await openPostgresDriver(viaProxy.href, { poolSize: 2, ...timeouts });
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      // A connection handed out of the pool has no listener of the pool's: its break once crashed the process.
      const outcome = driver.transaction(function* () {
        yield sql('SELECT pg_sleep(60)');
      });
      const settled = outcome.then(
        () => assert.fail('committed through a cut connection'),
        (error: unknown) => error,
      );
      const sleeping = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'";
      for (let tries = 0; ((await admin.query(sleeping)).rows[0] as { n: number }).n === 0; tries++) {
        assert.ok(tries < 400, 'the statement reached the server');
        await sleep(25);
      }
      await proxy.cut();
      assert.equal(driver.fault(await settled)?.kind, 'unavailable');
      await proxy.restore();
      assert.deepEqual(
        (await driver.read(sql('SELECT 1 AS one'), false)).rows,
        [{ one: 1 }],
        'a fresh connection serves',
      );
    } finally {
      await driver.close();
      await admin.end();
      await proxy.close();
      await db.drop();
    }
  });

  it('refuses to start, in one line, when the database cannot be reached', async () => {
    const proxy = await startTcpProxy(5432);
    await proxy.cut();
    const { code, stderr } = await runCommand([], {
      DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${proxy.port}/nowhere`,
      DATABASE_CONNECT_TIMEOUT: '1000',
    });
    assert.equal(code, 1);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.match(stderr, /cannot reach the database/);
    assert.doesNotMatch(stderr, /secret/, 'the password is never printed');
  });
});
