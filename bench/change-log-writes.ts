/**
 * `node --import tsx bench/change-log-writes.ts`: what the change log costs writes, on
 * SQLite and on PostgreSQL. Two servers of this checkout run side by side on databases of
 * their own; the baseline's change-log triggers are dropped once it has started (it makes
 * them on every start), so it writes exactly as restock did before the change feed. wrk
 * sends `--connections` (50) concurrent POSTs, then PUTs, to each in turn, `--reps` (3)
 * times for `--seconds` (5); prints the median req/s of each and their ratio.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import Database from '../src/store/sqlite/sqlite-library.js';
import { onBothStores } from './both-stores.js';
import { median } from './median.js';
import { SCENARIOS } from './scenarios.js';
import { type BenchServer, corePins, startServer } from './servers.js';
import { ensureWrk, runLoad } from './wrk.js';

const { values: flags } = parseArgs({
  options: { connections: { type: 'string' }, reps: { type: 'string' }, seconds: { type: 'string' } },
});
const CONNECTIONS = Number(flags.connections ?? 50);
const REPS = Number(flags.reps ?? 3);
const SECONDS = Number(flags.seconds ?? 5);
const PRODUCTS = 2000;
const KINDS = ['created', 'updated', 'deleted'];
const TABLES = ['users', 'products'];

/** Drops the change-log triggers of the server on `env`'s database (or the SQLite file). */
async function dropLogTriggers(env: Record<string, string>, database: string): Promise<void> {
  const triggers = TABLES.flatMap((table) => KINDS.map((kind) => ({ table, name: `${table}_log_${kind}` })));
  if (env.DATABASE_URL) {
    const client = new pg.Client(env.DATABASE_URL);
    await client.connect();
    for (const { table, name } of triggers) await client.query(`DROP TRIGGER IF EXISTS "${name}" ON "${table}"`);
    await client.end();
    return;
  }
  const db = new Database(database);
  for (const { name } of triggers) db.exec(`DROP TRIGGER IF EXISTS "${name}"`);
  db.close();
}

async function seed(server: BenchServer): Promise<void> {
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({ name: `p${i}`, price: i }));
  for (let i = 0; i < products.length; i += 500) {
    const response = await fetch(`${server.url}/product/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(products.slice(i, i + 500)),
    });
    if (response.status !== 201) throw new Error(`seeding answered ${response.status}`);
  }
}

ensureWrk();
const pins = corePins();
await onBothStores('change-log-writes', async (store, env, database) => {
  // The baseline's database: a second one beside the store's.
  const baseEnv = { ...env };
  const baseDir = mkdtempSync(join(tmpdir(), 'restock-base-'));
  const baseFile = join(baseDir, 'base.db');
  let admin: pg.Client | undefined;
  if (env.DATABASE_URL) {
    const url = new URL(env.DATABASE_URL);
    admin = new pg.Client(env.DATABASE_URL);
    await admin.connect();
    const name = `${url.pathname.slice(1)}_base`;
    await admin.query(`CREATE DATABASE ${name}`);
    url.pathname = `/${name}`;
    baseEnv.DATABASE_URL = url.href;
  }
  const logged = await startServer({ target: 'restock', database, pin: pins.server, env });
  const base = await startServer({ target: 'restock', database: baseFile, pin: pins.server, env: baseEnv });
  try {
    await dropLogTriggers(baseEnv, baseFile);
    await Promise.all([seed(logged), seed(base)]);
    for (const name of ['post', 'put']) {
      const scenario = SCENARIOS.find((s) => s.name === name);
      if (!scenario) throw new Error(`no scenario ${name}`);
      const rps = { logged: [] as number[], base: [] as number[] };
      for (let rep = 0; rep < REPS; rep++) {
        for (const [which, server] of [
          ['logged', logged],
          ['base', base],
        ] as const) {
          const load = { url: server.url, scenario, connections: CONNECTIONS, seconds: SECONDS, pin: pins.load };
          const result = await runLoad({ ...load, idFrom: 1, idTo: PRODUCTS });
          if (result.errors > 0) throw new Error(`${which} ${name}: ${result.errors} errors`);
          rps[which].push(result.rps);
        }
      }
      const [withLog, without] = [median(rps.logged), median(rps.base)];
      process.stdout.write(
        `${store.padEnd(10)} ${name.padEnd(5)} with the log ${withLog.toFixed(0).padStart(6)} req/s, ` +
          `without ${without.toFixed(0).padStart(6)} req/s: ${(withLog / without).toFixed(2)}\n`,
      );
    }
  } finally {
    await logged.stop();
    await base.stop();
    rmSync(baseDir, { recursive: true, force: true });
    if (admin) {
      await admin.query(`DROP DATABASE ${new URL(baseEnv.DATABASE_URL as string).pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
    }
  }
});
