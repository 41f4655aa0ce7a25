/**
 * Abuse limits: the request budget per API key (in process and shared through Redis), load
 * shedding when the event loop is saturated, and the timeouts that cut slow clients off,
 * each answered with a problem document.
 *
 * Every suite that builds an app runs once per store kind: budgets, Redis and load shedding
 * live outside the database, and running them on both shows that they hold in front of
 * either store. The settings checks read no database and run once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ConfigError, defaultConfig, loadConfig, parseApiKeys } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import { RedisUnavailableError } from '../src/http/plugins/rate-limit/index.js';
import { openStore, storeOptionsOf } from '../src/store/open-store.js';
import { problem, useApp, useDatabase } from './helpers/app.js';
import { injectAs, withKeys } from './helpers/keys.js';
import { REDIS_AVAILABLE, REDIS_URL } from './helpers/redis.js';
import { runCommand } from './helpers/server.js';
import { postgresAdmin, STORE_KINDS } from './helpers/stores.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';

function assertLimited(response: LightMyRequestResponse, limit: number) {
  problem(response, 429, 'too-many-requests');
  assert.ok(Number(response.headers['retry-after']) > 0, 'Retry-After');
  assert.equal(response.headers['ratelimit-limit'], String(limit));
  assert.equal(response.headers['ratelimit-remaining'], '0');
  assert.ok(Number(response.headers['ratelimit-reset']) > 0, 'RateLimit-Reset');
}

const NO_REDIS = !REDIS_AVAILABLE && 'Redis does not answer';

for (const kind of STORE_KINDS) {
  describe(`rate limits (${kind.name})`, () => {
    const ctx = useApp(kind, withKeys({ rateLimitMax: 3 }));

    it('give each API key its own budget, then answer 429 with Retry-After and RateLimit headers', async () => {
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await injectAs(ctx.app, 'read', { url: '/users/' });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['ratelimit-limit'], '3');
        remaining.push(String(response.headers['ratelimit-remaining']));
      }
      assert.deepEqual(remaining, ['2', '1', '0']);
      assertLimited(await injectAs(ctx.app, 'read', { url: '/users/' }), 3);
      assertLimited(await injectAs(ctx.app, 'read', { url: '/nowhere/' }), 3);

      // The write key has a budget of its own; tunnelled requests spend it like any other.
      for (let i = 0; i < 3; i++) {
        const response = await injectAs(ctx.app, 'write', {
          method: 'POST',
          url: '/users/',
          headers: { 'x-http-method-override': 'GET' },
        });
        assert.equal(response.statusCode, 200);
      }
      assertLimited(await injectAs(ctx.app, 'write', { method: 'DELETE', url: '/user/1/' }), 3);
    });

    it('count requests without a valid key by address, so guessing keys is limited too', async () => {
      const statuses: number[] = [];
      for (const credential of ['none', 'unknown', 'unknown', 'none', 'unknown'] as const) {
        statuses.push((await injectAs(ctx.app, credential, { url: '/users/' })).statusCode);
      }
      assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    });

    it('never limit the probes', async () => {
      for (let i = 0; i < 10; i++) {
        for (const url of ['/healthz', '/readyz']) {
          const response = await ctx.app.inject({ url });
          assert.equal(response.statusCode, 200);
          assert.equal(response.headers['ratelimit-limit'], undefined);
        }
      }
    });
  });

  describe(`rate limits and refused override headers (${kind.name})`, () => {
    const ctx = useApp(kind, withKeys({ rateLimitMax: 2 }));

    it('count a request whose override header is refused (400) like any other', async () => {
      for (const [credential, header] of [
        ['write', { 'x-http-method-override': 'FOO' }],
        ['none', { 'http-x-http-method': 'CONNECT' }],
      ] as const) {
        const remaining: string[] = [];
        for (let i = 0; i < 2; i++) {
          const response = await injectAs(ctx.app, credential, { method: 'POST', url: '/users/', headers: header });
          problem(response, 400, 'invalid-method-override');
          remaining.push(String(response.headers['ratelimit-remaining']));
        }
        assert.deepEqual(remaining, ['1', '0'], credential);
        assertLimited(await injectAs(ctx.app, credential, { url: '/users/' }), 2);
        assertLimited(await injectAs(ctx.app, credential, { method: 'POST', url: '/users/', headers: header }), 2);
      }
    });
  });

  describe(`rate limits by default (${kind.name})`, () => {
    const ctx = useApp(kind);

    it('allow 1000 requests a minute per client', async () => {
      const config = defaultConfig();
      assert.deepEqual([config.rateLimitMax, config.rateLimitWindow], [1000, 60_000]);
      let first429 = 0;
      for (let i = 1; i <= 1001 && first429 === 0; i++) {
        const response = await ctx.app.inject({ url: '/nowhere/' });
        if (response.statusCode === 429) first429 = i;
        else assert.equal(response.statusCode, 404);
      }
      assert.equal(first429, 1001);
    });
  });

  describe(`rate limits behind a proxy (${kind.name})`, () => {
    const trusting = useApp(kind, { rateLimitMax: 2, trustProxy: '127.0.0.1' });
    const direct = useApp(kind, { rateLimitMax: 2 });
    const from = (app: FastifyInstance, address: string) =>
      app.inject({ url: '/users/', headers: { 'x-forwarded-for': address } });

    it('count by the client address a trusted proxy forwards (TRUST_PROXY)', async () => {
      const statuses = [];
      for (const address of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2']) {
        statuses.push((await from(trusting.app, address)).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 429, 200]);
    });

    it('ignore X-Forwarded-For from anyone else, so that a client cannot pick its own budget', async () => {
      const statuses = [];
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        statuses.push((await from(direct.app, address)).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 429]);
    });
  });

  describe(`rate limits shared through Redis (${kind.name})`, { skip: NO_REDIS }, () => {
    // Every instance of a deployment serves the same database; the apps here do too.
    const shared = useDatabase(kind);
    /** An app on the suite's database with rate limits in Redis and one write key whose name no other run uses. */
    async function redisApp(
      redisUrl: string,
      name: string,
      max: number,
      logStream: { write(line: string): void } | false = false,
    ) {
      return buildApp({
        config: defaultConfig({
          databaseUrl: shared.db.url,
          apiKeys: parseApiKeys(`${name}:write:${name}-0123456789abcdef`),
          rateLimitMax: max,
          redisUrl,
        }),
        logStream,
      });
    }
    const as = (name: string) => ({ authorization: `Bearer ${name}-0123456789abcdef` });

    it('two instances spend one budget', async () => {
      const name = `shared-${randomBytes(6).toString('hex')}`;
      const apps = [await redisApp(REDIS_URL, name, 5), await redisApp(REDIS_URL, name, 5)];
      try {
        const seen: string[] = [];
        for (let i = 0; i < 7; i++) {
          const response = await (apps[i % 2] as FastifyInstance).inject({ url: '/users/', headers: as(name) });
          seen.push(`${response.statusCode}:${response.headers['ratelimit-remaining']}`);
          if (response.statusCode === 429) assertLimited(response, 5);
        }
        assert.deepEqual(seen, ['200:4', '200:3', '200:2', '200:1', '200:0', '429:0', '429:0']);
      } finally {
        for (const app of apps) await app.close();
      }
    });

    it('keep serving while Redis is away (unlimited, logged), and limit again once it is back', async () => {
      const name = `outage-${randomBytes(6).toString('hex')}`;
      const proxy = await startTcpProxy(Number(new URL(REDIS_URL).port || 6379), new URL(REDIS_URL).hostname);
      const logged: string[] = [];
      const app = await redisApp(`redis://127.0.0.1:${proxy.port}`, name, 2, { write: (line) => logged.push(line) });
      const get = () => app.inject({ url: '/users/', headers: as(name) });
      try {
        assert.equal((await get()).headers['ratelimit-remaining'], '1');
        await proxy.cut();
        for (let i = 0; i < 4; i++) assert.equal((await get()).statusCode, 200, 'served without Redis');
        await proxy.restore();
        let status = 200;
        for (let attempt = 0; attempt < 100 && status === 200; attempt++) {
          status = (await get()).statusCode;
          if (status === 200) await sleep(100);
        }
        assert.equal(status, 429, 'the budget kept in Redis applies again');
        const warnings = logged.filter((line) => line.includes('Redis does not answer'));
        assert.equal(warnings.length, 1, 'the outage is logged once, not once per request or retry');
        assert.ok(logged.some((line) => line.includes('Redis answers again')));
      } finally {
        await app.close();
        await proxy.close();
      }
    });

    it('refuse to start when Redis does not answer, in one line', async () => {
      const { code, stderr } = await runCommand([], {
        PORT: '0',
        DATABASE_URL: shared.db.url,
        REDIS_URL: 'redis://:hunter2hunter2@127.0.0.1:1',
      });
      assert.equal(code, 1);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(stderr, /^restock: cannot reach Redis at 127\.0\.0\.1:1 \(REDIS_URL\)/);
      assert.equal(stderr.includes('hunter2'), false, 'the password is not shown');
    });

    it('close the database when Redis stops the app from being built', async () => {
      const refusedDb = await kind.create();
      const config = defaultConfig({ databaseUrl: refusedDb.url, redisUrl: 'redis://127.0.0.1:1' });
      await assert.rejects(buildApp({ config, logStream: false }), RedisUnavailableError);
      // A second store on the same database still opens, migrates and closes; on PostgreSQL a
      // plain DROP DATABASE (no FORCE) succeeds only once no connection is left open.
      const again = await openStore(refusedDb.url, loadCatalog(config), storeOptionsOf(config));
      await again.close();
      if (kind.name === 'postgres') await postgresAdmin(`DROP DATABASE ${new URL(refusedDb.url).pathname.slice(1)}`);
      await refusedDb.drop();
    });
  });

  describe(`load shedding (${kind.name})`, () => {
    const ctx = useDatabase(kind);
    // Sheds past a mean delay of `maxEventLoopDelay` (100 ms unless given), measured every 50 ms.
    const sheddingApp = (maxEventLoopDelay = 100) =>
      buildApp({
        config: defaultConfig({ databaseUrl: ctx.db.url, maxEventLoopDelay }),
        eventLoopSampleMs: 50,
        logStream: false,
      });

    it('answers 503 with Retry-After while the event loop is saturated, except /healthz, and recovers', async () => {
      const app = await sheddingApp();
      try {
        let shed: LightMyRequestResponse | undefined;
        let health: LightMyRequestResponse | undefined;
        for (let attempt = 0; attempt < 20 && !shed; attempt++) {
          // A real saturation: this process's event loop is blocked for 400 ms at a time.
          const until = Date.now() + 400;
          while (Date.now() < until) {}
          for (let poll = 0; poll < 40 && !shed; poll++) {
            const [users, healthz] = await Promise.all([
              app.inject({ url: '/users/' }),
              app.inject({ url: '/healthz' }),
            ]);
            if (users.statusCode === 503) [shed, health] = [users, healthz];
            else assert.equal(users.statusCode, 200);
            await sleep(5);
          }
        }
        assert.ok(shed, 'a request was shed');
        problem(shed, 503, 'overloaded');
        assert.equal(shed.headers['retry-after'], '5');
        assert.equal(health?.statusCode, 200, '/healthz answers while the others are shed');
        let recovered = 0;
        for (let poll = 0; poll < 100 && recovered !== 200; poll++) {
          recovered = (await app.inject({ url: '/users/' })).statusCode;
          if (recovered !== 200) await sleep(20);
        }
        assert.equal(recovered, 200);
      } finally {
        await app.close();
      }
    });

    it("sheds nothing for the time its own start took, only for what comes after it's ready", async () => {
      // A threshold above what a loaded machine's own noise reaches (two CPU burners and the
      // suite beside it made a mean of over 100 ms), far below the start's 1,000 ms.
      const app = await sheddingApp(400);
      try {
        // A slow start: the loop is held for 1,000 ms between registering the plugins and ready.
        const until = Date.now() + 1000;
        while (Date.now() < until) {}
        await app.ready();
        for (let request = 0; request < 5; request++) {
          const response = await app.inject({ url: '/users/' });
          assert.equal(response.statusCode, 200, `request ${request}: ${response.body}`);
        }
      } finally {
        await app.close();
      }
    });
  });
}

describe('limit settings', () => {
  it('have defaults that bound every wait, and refuse what cannot work', () => {
    const config = defaultConfig();
    assert.deepEqual(
      [config.headersTimeout, config.requestTimeout, config.keepAliveTimeout, config.maxEventLoopDelay],
      [10_000, 30_000, 72_000, 1000],
    );
    assert.equal(loadConfig([], { RATE_LIMIT_MAX: '0' }).config.rateLimitMax, 0, '0 turns the limit off');
    assert.equal(
      loadConfig([], { TRUST_PROXY: '10.0.0.0/8, loopback, ::1' }).config.trustProxy,
      '10.0.0.0/8, loopback, ::1',
    );
    for (const [env, reason] of [
      [{ HEADERS_TIMEOUT: '40000' }, /HEADERS_TIMEOUT \(40000\) must not exceed REQUEST_TIMEOUT \(30000\)/],
      [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
      [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY: "10.0.0.0\/33" is not an address/],
      [{ TRUST_PROXY: 'true' }, /TRUST_PROXY: "true"/],
      [{ RATE_LIMIT_WINDOW: '10' }, /RATE_LIMIT_WINDOW must be an integer/],
      [{ PUBLIC_READS: 'yes please' }, /PUBLIC_READS must be true or false/],
    ] as const) {
      assert.throws(
        () => loadConfig([], env),
        (e: Error) => e instanceof ConfigError && reason.test(e.message),
      );
    }
  });
});
