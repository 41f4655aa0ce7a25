/**
 * What `||` costs a filter: `node --import tsx bench/filter-or.ts [--products N] [--runs N]`.
 * Over N products (default 200,000; `price` indexed, as restock indexes it by default) on
 * SQLite and then PostgreSQL (127.0.0.1, TEST_POSTGRES_URL), it times one page (100
 * records, in id order) and an exact count of
 *
 *   (price > 100 && stock > 0) || category = 'toys'     against     price > 100 && stock > 0
 *
 * each read as a list's `?filter=` (src/records/list-filter.ts) and run through the store,
 * without HTTP: the median of `--runs` runs after three not counted. PostgreSQL's tables are
 * analyzed after seeding, as the other benchmarks' are.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildCatalog } from '../src/core/catalog.js';
import { parseListQuery } from '../src/records/list-query.js';
import { openStore } from '../src/store/open-store.js';
import { onBothStores } from './both-stores.js';
import { analyzePostgres } from './seeded-postgres.js';

const { values } = parseArgs({
  options: { products: { type: 'string', default: '200000' }, runs: { type: 'string', default: '15' } },
});
const PRODUCTS = Math.min(Number(values.products), 2_000_000);
const RUNS = Math.min(Number(values.runs), 1000);
const CATEGORIES = ['toys', 'tools', 'books', 'garden', 'kitchen', 'games', 'music', 'sport', 'tea', 'office'];
const QUERIES = {
  'with ||': "(price > 100 && stock > 0) || category = 'toys'",
  'without ||': 'price > 100 && stock > 0',
};

const catalog = buildCatalog([{ plural: 'products', singular: 'product', unique: [] }], {
  indexes: [{ collection: 'products', path: ['price'] }],
});

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i += 1) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return median(times);
}

await onBothStores('filter-or', async (name, env, file) => {
  const store = await openStore(env.DATABASE_URL ?? `sqlite:${file}`, catalog);
  try {
    const products = store.collection('products');
    const seeded = performance.now();
    for (let at = 0; at < PRODUCTS; at += 2000) {
      const chunk = Array.from({ length: Math.min(2000, PRODUCTS - at) }, (_, i) => {
        const n = at + i;
        // Spread without a pattern that lines up with ids: price 0–199.99, stock 0–9.
        return JSON.stringify({
          name: `p${n}`,
          price: ((n * 7919) % 20000) / 100,
          stock: (n * 31) % 10,
          category: CATEGORIES[(n * 13) % CATEGORIES.length],
        });
      });
      await products.createMany(chunk);
    }
    // As a server's autovacuum would have by the time anyone reads: without statistics the
    // planner guesses one match for the || filter and scans the whole table.
    if (env.DATABASE_URL) await analyzePostgres(env.DATABASE_URL);
    console.log(`${name}: ${PRODUCTS} products seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    for (const [label, filter] of Object.entries(QUERIES)) {
      const { query } = parseListQuery({ limit: 100, filter }, 64);
      const page = await timed(() => products.list(query));
      const count = await timed(() => products.count(query));
      const costly = await products.isCostly(query);
      const total = await products.count(query);
      console.log(
        `${name} ${label.padEnd(10)} page ${page.toFixed(2)} ms, count ${count.toFixed(1)} ms ` +
          `(${total} match; ${costly ? 'costly' : 'ordinary'})`,
      );
    }
  } finally {
    await store.close();
  }
});
