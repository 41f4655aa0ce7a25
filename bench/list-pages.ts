/**
 * Does a page cost the same in a big collection as in a small one? Latency of list pages
 * with 1,000 and with 1,000,000 records of each kind, on each store: the first page and a
 * page deep inside (through a cursor), unfiltered, sorted by an indexed field and filtered
 * on one. Reports the median and p99 of each and the ratio big ÷ small (target: < 1.5).
 *
 *   node --import tsx bench/list-pages.ts [--stores sqlite,postgres] [--sizes 1000,1000000] [--requests 300]
 *
 * Each run seeds fresh databases (a temporary SQLite file; a scratch PostgreSQL database on
 * TEST_POSTGRES_URL, dropped at the end), starts restock as its own process on 127.0.0.1,
 * and asks one request at a time. Results also go to bench/results/list-pages-*.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { defaultConfig } from '../src/config/index.js';
import { encodeCursor } from '../src/records/cursor.js';
import { openStore } from '../src/store/open-store.js';
import { CATALOG } from './schema.js';
import { analyzePostgres } from './seeded-postgres.js';

const { values: args } = parseArgs({
  options: {
    stores: { type: 'string', default: 'sqlite,postgres' },
    sizes: { type: 'string', default: '1000,1000000' },
    requests: { type: 'string', default: '300' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const REQUESTS = Number(args.requests);
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROOT = new URL('..', import.meta.url).pathname;

/** The price of product number i (1-based): spread over 0.00–999.99, many ties. */
const priceOf = (i: number) => ((i * 7919) % 100_000) / 100;

/** The scenarios: a path for a collection of `size` records. */
function scenarios(size: number): Record<string, string> {
  const middle = Math.floor(size / 2);
  const midPrice = priceOf(middle);
  return {
    'first page, by id': '/products/?limit=100',
    'deep page, by id': `/products/?limit=100&cursor=${encodeCursor([middle], '')}`,
    'first page, sort=price': '/products/?sort=price&limit=100',
    'deep page, sort=price': `/products/?sort=price&limit=100&cursor=${encodeCursor([1, midPrice, '', middle], 'price')}`,
    'deep page, sort=-price': `/products/?sort=-price&limit=100&cursor=${encodeCursor([1, midPrice, '', middle], '-price')}`,
    'filter sku=…': `/products/?sku=SKU-${middle}`,
    'filter price range, sorted': `/products/?price[gte]=${midPrice}&sort=price&limit=100`,
    'filter users email=…': `/users/?email=user${middle}@example.com`,
  };
}

interface Result {
  store: string;
  size: number;
  scenario: string;
  medianMs: number;
  p99Ms: number;
}

async function main() {
  const results: Result[] = [];
  for (const store of args.stores.split(',')) {
    if (store === 'postgres' && !(await postgresAnswers())) {
      process.stderr.write(`postgres: skipped, nothing answers at ${ADMIN_URL}\n`);
      continue;
    }
    const databases = [];
    const servers = [];
    try {
      for (const size of SIZES) {
        const db = await createDatabase(store, size);
        databases.push(db);
        process.stderr.write(`${store}, ${size.toLocaleString('en')} records: seeding…\n`);
        await seed(db.url, size);
        servers.push({ size, ...(await startRestock(db.url)) });
      }
      // Both sizes are served at once and measured in alternating rounds, so that whatever
      // else the machine does weighs on both alike.
      for (const scenario of Object.keys(scenarios(1))) {
        const times = servers.map(() => [] as number[]);
        for (const server of servers) await measure(`${server.url}${scenarios(server.size)[scenario]}`, 30, []);
        for (let round = 0; round < 10; round++) {
          for (const [i, server] of servers.entries()) {
            await measure(
              `${server.url}${scenarios(server.size)[scenario]}`,
              Math.ceil(REQUESTS / 10),
              times[i] as number[],
            );
          }
        }
        for (const [i, server] of servers.entries()) {
          const { median, p99 } = summarize(times[i] as number[]);
          results.push({ store, size: server.size, scenario, medianMs: median, p99Ms: p99 });
          process.stderr.write(
            `  ${String(server.size).padStart(8)} ${scenario.padEnd(30)} median ${median.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms\n`,
          );
        }
      }
    } finally {
      for (const server of servers) server.stop();
      for (const db of databases) await db.drop();
    }
  }
  report(results);
}

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function createDatabase(store: string, size: number) {
  if (store === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'restock-bench-'));
    return { url: `sqlite:${join(dir, 'bench.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `restock_bench_${size}_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    await client.query(sql);
    await client.end();
  };
  await admin(`DROP DATABASE IF EXISTS ${name}`);
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE ${name} WITH (FORCE)`) };
}

/** Writes `size` products and users through the store itself, in batches. */
async function seed(url: string, size: number) {
  const store = await openStore(url, CATALOG, storeOptions());
  try {
    for (let from = 1; from <= size; from += 10_000) {
      const count = Math.min(10_000, size - from + 1);
      const numbers = Array.from({ length: count }, (_, k) => from + k);
      await store.collection('products').createMany(
        numbers.map((i) =>
          JSON.stringify({
            name: `Product ${i}`,
            sku: `SKU-${i}`,
            price: priceOf(i),
            stock: i % 50,
            tags: ['bench'],
          }),
        ),
      );
      await store
        .collection('users')
        .createMany(numbers.map((i) => JSON.stringify({ name: `User ${i}`, email: `user${i}@example.com` })));
    }
  } finally {
    await store.close();
  }
  if (url.startsWith('postgres')) await analyzePostgres(url);
}

function storeOptions() {
  const config = defaultConfig();
  return {
    poolSize: 2,
    connectTimeoutMs: config.databaseConnectTimeout,
    statementTimeoutMs: 600_000,
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

async function startRestock(databaseUrl: string) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    // RATE_LIMIT_MAX=0: the benchmark measures the service, not its per-client budget.
    env: { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', RATE_LIMIT_MAX: '0' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      if (attempt > 600) throw new Error('restock did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

/** `count` sequential requests; their latencies go into `into` (pass a scratch array to warm up). */
async function measure(url: string, count: number, into: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    into.push(performance.now() - started);
  }
}

function summarize(times: number[]): { median: number; p99: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    median: sorted[Math.floor(sorted.length / 2)] ?? 0,
    p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0,
  };
}

function report(results: Result[]) {
  const [small, big] = [Math.min(...SIZES), Math.max(...SIZES)];
  const lines = [`\nList-page latency, median of ${REQUESTS} sequential requests (ratio: ${big} ÷ ${small} records)\n`];
  lines.push(`${'store'.padEnd(9)}${'scenario'.padEnd(30)}${`${small}`.padStart(12)}${`${big}`.padStart(12)}   ratio`);
  for (const r of results.filter((x) => x.size === small)) {
    const other = results.find((x) => x.store === r.store && x.scenario === r.scenario && x.size === big);
    const ratio = other ? other.medianMs / r.medianMs : Number.NaN;
    lines.push(
      `${r.store.padEnd(9)}${r.scenario.padEnd(30)}${`${r.medianMs.toFixed(2)} ms`.padStart(12)}` +
        `${other ? `${other.medianMs.toFixed(2)} ms`.padStart(12) : ''.padStart(12)}   ${ratio.toFixed(2)}${ratio < 1.5 ? '' : '  (over 1.5)'}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, `bench/results/list-pages-${new Date().toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(file, JSON.stringify({ sizes: SIZES, requests: REQUESTS, results }, null, 2));
  process.stdout.write(`\nwritten to ${file}\n`);
}

await main();
