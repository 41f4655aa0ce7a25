/**
 * Batches that change the same records at once, in different orders (bench/README.md,
 * "Batches on the same records"): per store, restock (dist/server.js, as `npm start` runs
 * it) over the example shop with a write key, a shopper and four products; then, round
 * after round, N batches sent together, each patching the four products in an order rotated
 * by one from the batch before and then creating an order naming them. Per round: how many
 * were answered 200 (and what else was), each batch's time from sent to answered (p50,
 * p99), and the round's wall time. After the rounds it checks what all-or-none batches
 * keep: one order per 200, and each product one version on per 200.
 *
 *   node --import tsx bench/rotated-batches.ts [--batches 40] [--rounds 5] [--stores sqlite,postgres]
 *
 * SQLite runs on a temporary file; PostgreSQL on a scratch database on TEST_POSTGRES_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres), dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './median.js';
import { startServer } from './servers.js';
import { SHOP_SCHEMAS, scratchDatabase } from './shop-seed.js';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '5' },
    stores: { type: 'string', default: 'sqlite,postgres' },
  },
});
const BATCHES = Number(args.batches);
const ROUNDS = Number(args.rounds);
const PRODUCTS = 4;

/** The value at quantile `q` of `sorted` (nearest rank). */
const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;

interface Round {
  ok: number;
  others: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  wallMs: number;
}

async function runStore(store: string, work: string): Promise<void> {
  const scratch = await scratchDatabase(store, work);
  if (!scratch) {
    console.log(`${store}: skipped, no PostgreSQL answers (TEST_POSTGRES_URL)`);
    return;
  }
  const key = randomBytes(32).toString('hex');
  const server = await startServer({
    target: 'restock',
    database: scratch.sqlitePath,
    pin: [],
    env: {
      SCHEMAS: SHOP_SCHEMAS,
      API_KEYS: `bench:write:${key}`,
      ...(store === 'postgres' && { DATABASE_URL: scratch.url }),
    },
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  try {
    const created = async (path: string, body: unknown) =>
      (JSON.parse((await send('POST', path, body)).text) as { id: number }).id;
    const userId = await created('/user/', { name: 'Shopper', email: 'shopper@example.com' });
    const products: number[] = [];
    for (let i = 0; i < PRODUCTS; i++) products.push(await created('/product/', { name: `p${i}`, stock: 0 }));
    const items = products.map((productId) => ({ productId, quantity: 1 }));
    const batchOf = (b: number) => [
      ...products.map((_, k) => ({
        method: 'PATCH',
        path: `/product/${products[(b + k) % PRODUCTS]}/`,
        body: { stock: b },
      })),
      { method: 'POST', path: '/order/', body: { userId, items, status: 'placed' } },
    ];
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: BATCHES }, async (_, b) => {
          const sent = performance.now();
          const { status } = await send('POST', '/batch/', batchOf(b));
          return { status, ms: performance.now() - sent };
        }),
      );
      const wallMs = performance.now() - started;
      const times = answers.map((answer) => answer.ms).sort((a, b) => a - b);
      const others: Record<string, number> = {};
      for (const { status } of answers) if (status !== 200) others[status] = (others[status] ?? 0) + 1;
      const ok = answers.filter((answer) => answer.status === 200).length;
      rounds.push({ ok, others, p50Ms: quantile(times, 0.5), p99Ms: quantile(times, 0.99), wallMs });
      const line = rounds.at(-1) as Round;
      console.log(
        `${store} round ${round + 1}: ${ok}/${BATCHES} 200 ${JSON.stringify(others)}, ` +
          `p50 ${line.p50Ms.toFixed(1)} ms, p99 ${line.p99Ms.toFixed(1)} ms, wall ${wallMs.toFixed(0)} ms`,
      );
    }
    const kept = rounds.reduce((sum, round) => sum + round.ok, 0);
    const orders = (JSON.parse((await send('GET', '/orders/?limit=1000')).text) as unknown[]).length;
    const versions = await Promise.all(
      products.map(async (id) =>
        Number(/-(\d+)"$/.exec((await send('GET', `/product/${id}/`)).headers.get('etag') ?? '')?.[1]),
      ),
    );
    const whole = orders === kept && versions.every((version) => version === 1 + kept);
    console.log(
      `${store}: ${kept}/${BATCHES * ROUNDS} kept; median of rounds p50 ${median(rounds.map((r) => r.p50Ms)).toFixed(1)} ms, ` +
        `p99 ${median(rounds.map((r) => r.p99Ms)).toFixed(1)} ms, wall ${median(rounds.map((r) => r.wallMs)).toFixed(0)} ms; ` +
        `${orders} orders, product versions ${versions.join(', ')}: ${whole ? 'every batch whole' : 'NOT WHOLE'}`,
    );
  } finally {
    await server.stop();
    await scratch.drop();
  }
}

const work = mkdtempSync(join(tmpdir(), 'restock-rotated-'));
try {
  for (const store of args.stores.split(',')) await runStore(store, work);
} finally {
  rmSync(work, { recursive: true, force: true });
}
