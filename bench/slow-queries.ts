/**
 * Slow queries beside fast ones: `node --import tsx bench/slow-queries.ts [--products N]
 * [--seconds S] [--stores sqlite,postgres]`. restock (dist/, production flags) over a
 * million products, on each store:
 *
 * 1. GET one user from 8 connections, alone; then again while 4 more connections each send
 *    worst-case queries one after another (a 2-character search, which no index serves, and
 *    a sort on two fields without an index). Latency p50/p99 of GET one, and its 503s.
 * 2. `q=` over the million products: 200 searches one after another for text some product
 *    holds (a product's sku, a word and number of its name), p50 and p99.
 *
 * Neither server is pinned to a core: the read threads are what is measured. The load comes
 * from this process (keep-alive connections, one request at a time each).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from './median.js';
import { seedDatabase } from './seed.js';
import { onSeededPostgres } from './seeded-postgres.js';
import { type BenchServer, startServer } from './servers.js';

const { values: args } = parseArgs({
  options: {
    products: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '10' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const PRODUCTS = Number(args.products);
const SECONDS = Number(args.seconds);
const USERS = 10_000;
const SLOW = ['/products/?q=zq', '/products/?sort=-description,name'];
const ENV = { MAX_COSTLY_QUERIES: '16', MAX_COSTLY_QUERIES_PER_CLIENT: '8' };

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** GET `url`: its status and how long it took (ms). */
function get(url: string): Promise<{ status: number; ms: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    request(url, { agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** Runs `connections` loops of `next()` requests until `until`; collects every answer. */
async function loops(connections: number, until: number, next: () => string) {
  const answers: { status: number; ms: number }[] = [];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) answers.push(await get(next()));
    }),
  );
  return answers;
}

function summary(answers: { status: number; ms: number }[]) {
  const ms = answers.map((answer) => answer.ms);
  const by = (status: number) => answers.filter((answer) => answer.status === status).length;
  return {
    requests: answers.length,
    p50: percentile(ms, 50).toFixed(2),
    p99: percentile(ms, 99).toFixed(2),
    '503': by(503),
    other: answers.length - by(200) - by(503),
  };
}

async function measure(server: BenchServer) {
  const user = () => `${server.url}/user/${1 + Math.floor(Math.random() * USERS)}/`;
  const alone = summary(await loops(8, Date.now() + SECONDS * 1000, user));
  const until = Date.now() + SECONDS * 1000;
  let turn = 0;
  const [beside, slow] = await Promise.all([
    loops(8, until, user),
    loops(4, until, () => `${server.url}${SLOW[turn++ % SLOW.length]}`),
  ]);
  const searches: number[] = [];
  for (let i = 0; i < 200; i++) {
    const n = 1 + Math.floor(Math.random() * PRODUCTS);
    const needle = i % 2 === 0 ? `sku-${String(n).padStart(8, '0')}` : `product ${n}`;
    const answer = await get(`${server.url}/products/?q=${encodeURIComponent(needle)}&limit=10`);
    if (answer.status !== 200) throw new Error(`q=${needle} answered ${answer.status}`);
    searches.push(answer.ms);
  }
  return {
    'GET one alone': alone,
    'GET one beside 4 slow-query connections': summary(beside),
    'the slow queries': summary(slow),
    'q= over the products': {
      requests: searches.length,
      p50: percentile(searches, 50).toFixed(2),
      p99: percentile(searches, 99).toFixed(2),
    },
  };
}

async function onSqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'restock-slow-'));
  try {
    const path = join(dir, 'bench.db');
    seedDatabase(path, { users: USERS, products: PRODUCTS });
    const server = await startServer({ target: 'restock', database: path, pin: [], env: ENV });
    try {
      return await measure(server);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function onPostgres() {
  const seed = { adminUrl: args['postgres-url'] as string, users: USERS, products: PRODUCTS, env: ENV };
  return onSeededPostgres(seed, measure);
}

execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
const results: Record<string, unknown> = {};
for (const store of (args.stores as string).split(',')) {
  process.stderr.write(`${store}: seeding ${PRODUCTS} products and measuring…\n`);
  results[store] = store === 'sqlite' ? await onSqlite() : await onPostgres();
  for (const [what, figures] of Object.entries(results[store] as object)) {
    process.stdout.write(`${store.padEnd(8)} ${what.padEnd(42)} ${JSON.stringify(figures)}\n`);
  }
}
agent.destroy();
