/** SPEC §11: Prometheus metrics at /metrics, store gauges, and probes kept out of the access log. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../src/config/index.js';
import { DEFAULT_COLLECTIONS } from '../src/core/default-collections.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/open-store.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import type { Store } from '../src/store/store.js';
import { body, JSON_HEADERS } from './helpers/app.js';
import { catalogOf } from './helpers/catalog.js';
import { startServer, waitForWorkers } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

/** The value of the sample named `name` with exactly `labels`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const prefix = wanted ? `${name}{${wanted}} ` : `${name} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

for (const kind of STORE_KINDS) {
  describe(`metrics (${kind.name})`, () => {
    it('count requests by route template, effective method, tunnelled or not, and status, with latencies', async () => {
      const db = await kind.create();
      const lines: Record<string, unknown>[] = [];
      const app = await buildApp({
        config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url }),
        logStream: { write: (line) => lines.push(JSON.parse(line)) },
      });
      try {
        const made = body(await app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: {} }));
        const item = `/user/${made.id}/`;
        await app.inject({ url: '/users/' });
        await app.inject({ url: `/users/${made.id}` }); // an alias, without its slash
        await app.inject({
          method: 'POST',
          url: item,
          headers: { ...JSON_HEADERS, 'HTTP-X-HTTP-METHOD': 'PUT' },
          payload: { a: 1 },
        });
        await app.inject({ method: 'PUT', url: item, headers: JSON_HEADERS, payload: { b: 1 } });
        await app.inject({ method: 'POST', url: item, headers: { 'X-HTTP-Method-Override': 'delete' } });
        await app.inject({ url: '/no/such/path' });
        await app.inject({ method: 'POST', url: item, headers: { 'HTTP-X-HTTP-METHOD': 'FROB' } });

        const response = await app.inject({ url: '/metrics' });
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
        const text = response.body;
        const count = (route: string, method: string, tunnelled: string, status: string) =>
          sample(text, 'restock_http_requests_total', { route, method, tunnelled, status });
        assert.equal(count('/user/', 'POST', 'false', '201'), 1);
        assert.equal(count('/users/', 'GET', 'false', '200'), 1);
        assert.equal(count('/users/:id/', 'GET', 'false', '200'), 1, 'an alias counts under its own template');
        assert.equal(count('/user/:id/', 'PUT', 'true', '200'), 1, 'the tunnelled PUT, by its effective method');
        assert.equal(count('/user/:id/', 'PUT', 'false', '200'), 1);
        assert.equal(count('/user/:id/', 'DELETE', 'true', '200'), 1);
        assert.equal(count('unmatched', 'GET', 'false', '404'), 1);
        assert.equal(count('/user/:id/', 'POST', 'false', '400'), 1, 'a refused override stays a POST');
        const latency = { route: '/user/:id/', method: 'PUT', tunnelled: 'true', status: '200' };
        assert.equal(sample(text, 'restock_http_request_duration_seconds_count', latency), 1);
        assert.ok((sample(text, 'restock_http_request_duration_seconds_sum', latency) ?? -1) >= 0);
        assert.equal(sample(text, 'restock_http_request_duration_seconds_bucket', { le: '+Inf', ...latency }), 1);
        assert.ok((sample(text, 'restock_process_cpu_user_seconds_total') ?? 0) > 0, 'process metrics');
        if (kind.name === 'sqlite') {
          assert.ok((sample(text, 'restock_store_database_bytes') ?? 0) > 0);
          const transactions = sample(text, 'restock_store_group_commit_transactions') ?? 0;
          const writes = sample(text, 'restock_store_group_commit_writes') ?? 0;
          assert.ok(transactions >= 1 && writes >= transactions, `${writes} writes in ${transactions} transactions`);
        }
        if (kind.name === 'postgres') {
          const idle = sample(text, 'restock_store_pool_connections', { state: 'idle' }) ?? -1;
          assert.ok(idle >= 1, 'the pool has kept a connection');
          assert.equal(sample(text, 'restock_store_pool_connections', { state: 'waiting' }), 0);
        }

        // The scrape itself is counted (on the next scrape) but never logged, like the probes.
        await app.inject({ url: '/healthz' });
        await app.inject({ url: '/readyz' });
        const again = (await app.inject({ url: '/metrics' })).body;
        assert.equal(
          sample(again, 'restock_http_requests_total', {
            route: '/metrics',
            method: 'GET',
            tunnelled: 'false',
            status: '200',
          }),
          1,
        );
        const logged = lines.filter((l) => l.msg === 'request completed').map((l) => (l.req as { url: string }).url);
        assert.ok(logged.includes('/users/'), 'ordinary requests are logged');
        for (const quiet of ['/metrics', '/healthz', '/readyz']) {
          assert.ok(!logged.includes(quiet), `${quiet} is not in the access log`);
        }
      } finally {
        await app.close();
        await db.drop();
      }
    });

    it("serve a store's own gauges, read at each scrape", async () => {
      const db = await kind.create();
      const real = await openStore(db.url, catalogOf(DEFAULT_COLLECTIONS.map((r) => r.plural)));
      // A real store reporting gauges of the kind a pooled store would (the PostgreSQL store's
      // pool is not merged yet): a plain value and one per label set.
      let waiting = 0;
      const store: Store = {
        ...real,
        collection: (name) => real.collection(name),
        gauges: [
          { name: 'pool_waiting', help: 'Requests waiting for a connection.', read: () => waiting },
          {
            name: 'pool_connections',
            help: 'Connections by state.',
            labelNames: ['state'],
            read: () => [
              { labels: { state: 'idle' }, value: 3 },
              { labels: { state: 'busy' }, value: 1 },
            ],
          },
        ],
      };
      const app = await buildApp({
        config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url }),
        store,
        logStream: false,
      });
      try {
        waiting = 2;
        const text = (await app.inject({ url: '/metrics' })).body;
        assert.match(text, /# HELP restock_store_pool_waiting Requests waiting for a connection\./);
        assert.match(text, /# TYPE restock_store_pool_waiting gauge/);
        assert.equal(sample(text, 'restock_store_pool_waiting'), 2);
        assert.equal(sample(text, 'restock_store_pool_connections', { state: 'idle' }), 3);
        assert.equal(sample(text, 'restock_store_pool_connections', { state: 'busy' }), 1);
        waiting = 5;
        assert.equal(sample((await app.inject({ url: '/metrics' })).body, 'restock_store_pool_waiting'), 5);
      } finally {
        await app.close();
        await real.close();
        await db.drop();
      }
    });

    it('--workers 2: every scrape counts the requests of both workers', async () => {
      const db = await kind.create();
      const server = await startServer({ DATABASE_URL: db.url, WORKERS: '2' });
      try {
        await waitForWorkers(server, 2);
        // A fresh connection each time, so that the requests spread over the workers.
        const get = (path: string) => fetch(`${server.url}${path}`, { headers: { connection: 'close' } });
        for (let i = 0; i < 20; i++) {
          const response = await get('/users/');
          assert.equal(response.status, 200, await response.text());
        }
        for (let scrape = 0; scrape < 4; scrape++) {
          const text = await (await get('/metrics')).text();
          const labels = { method: 'GET', tunnelled: 'false', status: '200' };
          assert.equal(
            sample(text, 'restock_http_requests_total', { route: '/users/', ...labels }),
            20,
            `scrape ${scrape}`,
          );
          // Earlier scrapes are counted once they are answered, whichever worker answered them.
          assert.equal(
            sample(text, 'restock_http_requests_total', { route: '/metrics', ...labels }),
            scrape || undefined,
          );
          if (kind.name === 'sqlite') {
            // Read here too: both workers see this one file, so its size must not be summed.
            const file = new Database(db.url.slice('sqlite:'.length), { readonly: true });
            const size =
              Number(file.pragma('page_count', { simple: true })) * Number(file.pragma('page_size', { simple: true }));
            file.close();
            assert.equal(sample(text, 'restock_store_database_bytes'), size);
          }
        }
        const logs = server.output.map((line) => JSON.parse(line) as { pid: number; msg: string });
        const servingPids = new Set(logs.filter((l) => l.msg === 'request completed').map((l) => l.pid));
        assert.equal(servingPids.size, 2, 'both workers served requests');
      } finally {
        assert.equal(await server.stop(), 0);
        await db.drop();
      }
    });
  });
}
