/**
 * One client's filtered pages: `node --import tsx bench/one-client.ts [--products N]
 * [--seconds S] [--stores sqlite,postgres]`. restock (dist/, production flags and caps)
 * over 200,000 products on each store; wrk sends, from one address and over 50 connections,
 *
 * - an indexed filtered page, `?price[gte]=100&price[lte]=200&sort=price&limit=100`, which
 *   must never be refused (a `429` is a non-2xx answer, counted as an error), and
 * - a scan, `?category=toys&limit=100` (no index on category), which the per-client cap
 *   refuses past 2 at once: the caps still hold for costly lists.
 *
 * Neither server nor wrk is pinned: this counts answers, it does not compare speeds.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Scenario } from './scenarios.js';
import { seedDatabase } from './seed.js';
import { onSeededPostgres } from './seeded-postgres.js';
import { type BenchServer, startServer } from './servers.js';
import { ensureWrk, runLoad } from './wrk.js';

const { values: args } = parseArgs({
  options: {
    products: { type: 'string', default: '200000' },
    seconds: { type: 'string', default: '10' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const PRODUCTS = Number(args.products);
const SECONDS = Number(args.seconds);
const CONNECTIONS = 50;
/** The production caps on costly queries, written out: this measures the defaults. */
const ENV = { MAX_COSTLY_QUERIES: '4', MAX_COSTLY_QUERIES_PER_CLIENT: '2' };

const page = (name: string, path: string): Scenario => ({
  name,
  title: name,
  method: 'GET',
  path,
  ids: 'none',
  target: 0,
  expressTarget: 0,
});
const LISTS = [
  page('indexed filtered page', '/products/?price[gte]=100&price[lte]=200&sort=price&limit=100'),
  page('scan (no index)', '/products/?category=toys&limit=100'),
];

async function measure(store: string, server: BenchServer) {
  for (const scenario of LISTS) {
    const result = await runLoad({
      url: server.url,
      scenario,
      connections: CONNECTIONS,
      seconds: SECONDS,
      idFrom: 1,
      idTo: 1,
      pin: [],
    });
    const refused = result.errorKinds.status ?? 0;
    process.stdout.write(
      `${store.padEnd(10)} ${scenario.name.padEnd(22)} ${String(result.requests).padStart(7)} answers, ` +
        `${String(refused).padStart(7)} refused or failed (non-2xx), ${result.rps.toFixed(0)} req/s, p99 ${result.p99Ms.toFixed(1)} ms\n`,
    );
  }
}

async function onSqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'restock-one-client-'));
  try {
    const path = join(dir, 'bench.db');
    seedDatabase(path, { users: 1000, products: PRODUCTS });
    const server = await startServer({ target: 'restock', database: path, pin: [], env: ENV });
    try {
      await measure('SQLite', server);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function onPostgres() {
  const seed = { adminUrl: args['postgres-url'] as string, users: 1000, products: PRODUCTS, env: ENV };
  return onSeededPostgres(seed, (server) => measure('PostgreSQL', server));
}

ensureWrk();
execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
for (const store of (args.stores as string).split(',')) {
  process.stderr.write(`${store}: seeding ${PRODUCTS} products, then ${SECONDS} s of each list…\n`);
  await (store === 'sqlite' ? onSqlite() : onPostgres());
}
