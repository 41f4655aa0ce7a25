/**
 * Runs a measurement on SQLite (a file in a folder made here) and then on PostgreSQL (a
 * database made here on TEST_POSTGRES_URL's server, default the local one), dropping both
 * after, for the benchmarks that compare the two stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const ADMIN = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** What a measurement gets: the store's name, the server's environment, and the SQLite file. */
export type Measure = (store: string, env: Record<string, string>, database: string) => Promise<void>;

/** `stores` names the stores to run on (`sqlite`, `postgres`): both unless told. */
export async function onBothStores(name: string, measure: Measure, stores = ['sqlite', 'postgres']): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), `restock-${name}-`));
  try {
    if (stores.includes('sqlite')) await measure('SQLite', {}, join(work, 'bench.db'));
    if (!stores.includes('postgres')) return;
    const admin = new pg.Client(ADMIN);
    await admin.connect();
    const database = `restock_${name.replaceAll('-', '_')}_${process.pid}`;
    await admin.query(`CREATE DATABASE ${database}`);
    try {
      const url = new URL(ADMIN);
      url.pathname = `/${database}`;
      await measure('PostgreSQL', { DATABASE_URL: url.href }, join(work, 'unused.db'));
    } finally {
      await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
      await admin.end();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
