/**
 * `node --import tsx bench/bulk-create.ts`: creating 1,000 products in one request (a JSON
 * array) against 1,000 separate POSTs over 50 connections, on the same server in the same
 * run, on SQLite and on PostgreSQL (a database made and dropped here). Prints records per
 * second of each, medians of `--rounds` (default 5), and their ratio.
 */
import { parseArgs } from 'node:util';
import { onBothStores } from './both-stores.js';
import { median } from './median.js';
import { corePins, startServer } from './servers.js';

const { values: flags } = parseArgs({ options: { rounds: { type: 'string' }, records: { type: 'string' } } });
const rounds = Number(flags.rounds ?? 5);
const count = Number(flags.records ?? 1000);
const CONNECTIONS = 50;

const product = (i: number) => ({ name: `bulk ${i}`, sku: `B-${i}-${Math.random()}`, price: i % 100, tags: ['bench'] });

async function separately(url: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let i = next++; i < count; i = next++) {
        const response = await fetch(`${url}/product/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(product(i)),
        });
        if (response.status !== 201) throw new Error(`POST answered ${response.status}`);
        await response.arrayBuffer();
      }
    }),
  );
  return (count * 1000) / (performance.now() - started);
}

async function inOneRequest(url: string): Promise<number> {
  const body = JSON.stringify(Array.from({ length: count }, (_, i) => product(i)));
  const started = performance.now();
  const response = await fetch(`${url}/products/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (response.status !== 201) throw new Error(`bulk POST answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
  return (count * 1000) / (performance.now() - started);
}

async function measure(store: string, env: Record<string, string>, database: string): Promise<void> {
  const server = await startServer({ target: 'restock', database, pin: corePins().server, env });
  try {
    const one: number[] = [];
    const bulk: number[] = [];
    for (let round = 0; round < rounds; round++) {
      one.push(await separately(server.url));
      bulk.push(await inOneRequest(server.url));
    }
    const [a, b] = [median(one), median(bulk)];
    process.stdout.write(
      `${store.padEnd(10)} separate POSTs ${a.toFixed(0).padStart(7)} records/s   one array ${b.toFixed(0).padStart(7)} records/s   ratio ${(b / a).toFixed(1)}x\n`,
    );
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    `${count} products, ${CONNECTIONS} connections for the separate POSTs, median of ${rounds} rounds\n`,
  );
  await onBothStores('bulk', measure);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bulk-create: ${(error as Error).stack ?? String(error)} ${String((error as { cause?: unknown }).cause)}\n`,
  );
  process.exit(1);
});
