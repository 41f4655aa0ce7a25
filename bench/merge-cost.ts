/**
 * What one JSON Merge Patch costs as record and patch grow, on each store: the store's own
 * `merge` (no HTTP), timed as the median of a few runs on a fresh record each time.
 *
 *   node --import tsx bench/merge-cost.ts [--stores sqlite,postgres] [--runs 5]
 *
 * Cases: 20,000 new keys onto a record of 20,000, and a 1 MiB patch onto a 1 MiB record, once
 * with new keys (the record doubles, which MAX_RECORD_BYTES's default would refuse) and once
 * replacing every key. Each is timed with the patch as JSON text and as the parsed object
 * the HTTP layer hands over (its body is parsed once, on arrival). Besides the time, it
 * reports the CPU time this process spent (on SQLite all of the work but the fsync's wait;
 * on PostgreSQL the application's part), which a busy machine inflates less. SQLite
 * runs on a temporary file; PostgreSQL on a scratch database on TEST_POSTGRES_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), dropped at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openStore } from '../src/store/open-store.js';
import { median } from './median.js';
import { CATALOG } from './schema.js';

const { values: args } = parseArgs({
  options: { stores: { type: 'string', default: 'sqlite,postgres' }, runs: { type: 'string', default: '5' } },
});
const RUNS = Number(args.runs);
const ADMIN = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** An object of `count` keys `${prefix}${i}`, each holding `value(i)`. */
const object = (prefix: string, count: number, value: (i: number) => unknown) =>
  JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, value(i)])));

/** Keys of about 25 bytes each: 42,000 of them make 1 MiB. */
const MIB_KEYS = 42_000;
const CASES = [
  { name: '20,000 new keys onto 20,000', record: object('k', 20_000, (i) => i), patch: object('n', 20_000, (i) => i) },
  {
    name: '1 MiB of new keys onto 1 MiB',
    record: object('key-', MIB_KEYS, () => 'value-1234'),
    patch: object('new-', MIB_KEYS, () => 'value-5678'),
  },
  {
    name: '1 MiB replacing every key of 1 MiB',
    record: object('key-', MIB_KEYS, () => 'value-1234'),
    patch: object('key-', MIB_KEYS, () => 'value-5678'),
  },
];

async function scratch(kind: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'restock-merge-'));
    return { url: `sqlite:${join(dir, 'bench.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `restock_merge_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: ADMIN });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

for (const kind of args.stores.split(',')) {
  const db = await scratch(kind);
  const store = await openStore(db.url, CATALOG);
  try {
    const users = store.collection('users');
    for (const c of CASES) {
      const timed = async (patch: string | object) => {
        const times: number[] = [];
        const cpu: number[] = [];
        for (let run = 0; run < RUNS; run++) {
          const { id } = await users.create(c.record);
          const started = performance.now();
          const cpuStarted = process.cpuUsage();
          await users.merge(id, patch);
          const used = process.cpuUsage(cpuStarted);
          times.push(performance.now() - started);
          cpu.push((used.user + used.system) / 1000);
        }
        return (
          `median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')}), ` +
          `this process's CPU ${median(cpu).toFixed(0)} ms`
        );
      };
      const kb = (text: string) => `${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB`;
      console.log(`${kind} | ${c.name} | record ${kb(c.record)}, patch ${kb(c.patch)}`);
      console.log(`  patch as text:   ${await timed(c.patch)}`);
      console.log(`  patch as parsed: ${await timed(JSON.parse(c.patch))}`);
    }
  } finally {
    await store.close();
    await db.drop();
  }
}
