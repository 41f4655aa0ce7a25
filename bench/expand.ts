/**
 * `node --import tsx bench/expand.ts`: a page of 100 orders (3 items each) read with
 * `expand=userId,items.productId` against the same page without it, on the same server in
 * the same run, on SQLite and on PostgreSQL (a database made and dropped here), with the
 * example store's schemas. Prints pages per second of each, medians of `--rounds`
 * (default 5), and their ratio.
 */
import { parseArgs } from 'node:util';
import { onBothStores } from './both-stores.js';
import { median } from './median.js';
import { corePins, startServer } from './servers.js';

const { values: flags } = parseArgs({ options: { rounds: { type: 'string' }, requests: { type: 'string' } } });
const rounds = Number(flags.rounds ?? 5);
const requests = Number(flags.requests ?? 400);
const CONNECTIONS = 8;
const PLAIN = '/orders/?limit=100';
const EXPANDED = `${PLAIN}&expand=userId,items.productId`;

async function post(url: string, body: unknown): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

/** 20 users, 50 products, 100 orders of 3 items each. */
async function seed(url: string): Promise<void> {
  const users = Array.from({ length: 20 }, (_, i) => ({ name: `User ${i}`, email: `user${i}@example.com` }));
  await post(`${url}/users/`, users);
  const products = Array.from({ length: 50 }, (_, i) => ({ name: `Product ${i}`, sku: `P-${i}`, price: 10 + i }));
  await post(`${url}/products/`, products);
  const orders = Array.from({ length: 100 }, (_, i) => ({
    userId: 1 + (i % 20),
    items: [0, 1, 2].map((k) => ({ productId: 1 + ((i * 3 + k) % 50), quantity: 1 + k, price: 10 })),
    status: 'placed',
  }));
  await post(`${url}/orders/`, orders);
}

/** Pages per second reading `path` `requests` times over {@link CONNECTIONS} connections. */
async function rate(url: string, path: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next++ < requests) {
        const response = await fetch(`${url}${path}`);
        if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
        await response.arrayBuffer();
      }
    }),
  );
  return (requests * 1000) / (performance.now() - started);
}

async function measure(store: string, env: Record<string, string>, database: string): Promise<void> {
  const server = await startServer({
    target: 'restock',
    database,
    pin: corePins().server,
    env: { SCHEMAS: 'schemas/shop', ...env },
  });
  try {
    await seed(server.url);
    const plain: number[] = [];
    const expanded: number[] = [];
    for (let round = 0; round < rounds; round++) {
      plain.push(await rate(server.url, PLAIN));
      expanded.push(await rate(server.url, EXPANDED));
    }
    const [a, b] = [median(plain), median(expanded)];
    process.stdout.write(
      `${store.padEnd(10)} plain ${a.toFixed(0).padStart(5)} pages/s   expanded ${b.toFixed(0).padStart(5)} pages/s   ratio ${(b / a).toFixed(2)}\n`,
    );
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  process.stdout.write(`GET ${EXPANDED} against ${PLAIN}, ${CONNECTIONS} connections, median of ${rounds} rounds\n`);
  await onBothStores('expand', measure);
}

main().catch((error: unknown) => {
  process.stderr.write(`expand: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
