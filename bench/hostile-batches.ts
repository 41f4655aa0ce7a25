/**
 * What hostile batches and large records cost the others: restock over the example shop,
 * its heap capped at 512 MB, while a bystander reads a page of products one request after
 * another, timed each.
 *
 * 1. The bystander alone, for the latency it has on a quiet server.
 * 2. One anonymous batch of about 1 MB whose references would copy 740 KB of random text
 *    into 99 sign-ups, five times one at a time: its answer time.
 * 3. Ten of them at once, five rounds, beside the bystander.
 * 4. Ten creates of 1 MB of random text, one after another, beside the bystander.
 *
 *   node --import tsx bench/hostile-batches.ts                      # SQLite
 *   node --import tsx bench/hostile-batches.ts --postgres URL       # a PostgreSQL database of yours, emptied first
 *   node --import tsx bench/hostile-batches.ts --against DIR        # another checkout (built), for before and after
 *
 * Prints the bystander's p50 and p99 in each phase, the batches' answer times and statuses,
 * and the server's peak resident memory.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './median.js';
import { startServer } from './servers.js';
import { SHOP_SCHEMAS } from './shop-seed.js';

const { values } = parseArgs({ options: { postgres: { type: 'string' }, against: { type: 'string' } } });
const KEY = 'hostile-bench-write-key-0123456789';
const write = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const randomText = (length: number) =>
  randomBytes(Math.ceil((length * 3) / 4))
    .toString('base64')
    .slice(0, length);

const percentile = (samples: readonly number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

const dir = mkdtempSync(join(tmpdir(), 'restock-hostile-'));
const server = await startServer({
  target: values.against ? 'against' : 'restock',
  ...(values.against && { againstDir: values.against }),
  database: join(dir, 'shop.db'),
  pin: [],
  nodeFlags: ['--max-old-space-size=512'],
  env: {
    SCHEMAS: SHOP_SCHEMAS,
    API_KEYS: `bench:write:${KEY}`,
    MAX_EVENT_LOOP_DELAY: '0',
    ...(values.postgres && { DATABASE_URL: values.postgres }),
  },
});

/** Times `attack` while the bystander reads pages back to back; returns both. */
async function besideBystander<T>(attack: () => Promise<T>): Promise<{ result: T; reads: number[] }> {
  const reads: number[] = [];
  let done = false;
  const bystander = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${server.url}/products/?limit=10`, { headers: write });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`the bystander got ${response.status}`);
      reads.push(performance.now() - started);
    }
  })();
  try {
    return { result: await attack(), reads };
  } finally {
    done = true;
    await bystander;
  }
}

let serial = 0;
function attackBatch(blob: string): string {
  const run = ++serial;
  const signUp = (name: string, blobValue: string) => ({
    method: 'POST',
    path: '/user/',
    body: { name, email: `${name}-${run}@example.com`, blob: blobValue },
  });
  return JSON.stringify([signUp('eve', blob), ...Array.from({ length: 99 }, (_, i) => signUp(`eve${i}`, '$0.blob'))]);
}

async function sendBatch(body: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${server.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

try {
  for (let i = 0; i < 20; i++) {
    await fetch(`${server.url}/product/`, {
      method: 'POST',
      headers: write,
      body: JSON.stringify({ name: `Product ${i}` }),
    });
  }
  const quiet = await besideBystander(() => new Promise((resolve) => setTimeout(resolve, 3000)));
  console.log(`bystander alone: p50 ${ms(percentile(quiet.reads, 50))}, p99 ${ms(percentile(quiet.reads, 99))}`);

  const blob = randomText(740_000);
  const single: { status: number; ms: number }[] = [];
  for (let i = 0; i < 5; i++) single.push(await sendBatch(attackBatch(blob)));
  console.log(
    `one attack batch: statuses ${single.map((answer) => answer.status).join(',')}; median ${ms(median(single.map((a) => a.ms)))}`,
  );

  const tenAtOnce = await besideBystander(async () => {
    const answers: { status: number; ms: number }[] = [];
    for (let round = 0; round < 5; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 10 }, () => sendBatch(attackBatch(blob))))));
    }
    return answers;
  });
  const statuses = new Map<number, number>();
  for (const answer of tenAtOnce.result) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  console.log(
    `ten at once, 5 rounds: statuses ${JSON.stringify(Object.fromEntries(statuses))}, median answer ${ms(median(tenAtOnce.result.map((a) => a.ms)))}; ` +
      `bystander (${tenAtOnce.reads.length} reads) p50 ${ms(percentile(tenAtOnce.reads, 50))}, p99 ${ms(percentile(tenAtOnce.reads, 99))}`,
  );

  const creates = await besideBystander(async () => {
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const response = await fetch(`${server.url}/product/`, {
        method: 'POST',
        headers: write,
        body: JSON.stringify({ name: `Noise ${i}`, description: randomText(1_000_000) }),
      });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`a 1 MB create got ${response.status}`);
      times.push(performance.now() - started);
    }
    return times;
  });
  console.log(
    `ten 1 MB creates: median ${ms(median(creates.result))}; bystander (${creates.reads.length} reads) ` +
      `p50 ${ms(percentile(creates.reads, 50))}, p99 ${ms(percentile(creates.reads, 99))}`,
  );
  console.log(`peak resident memory: ${server.peakRssMb().toFixed(0)} MB (heap capped at 512 MB)`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
