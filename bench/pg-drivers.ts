/**
 * Which PostgreSQL driver restock uses, decided by measurement: node-postgres (`pg`) against
 * postgres.js on the statements the PostgreSQL store runs, with 50 requests in flight over
 * a pool of 10 connections, alternating drivers over several rounds.
 *
 *   node --import tsx bench/pg-drivers.ts [postgres://127.0.0.1:5432/postgres]
 *
 * It creates a scratch database, `restock_bench_drivers`, and drops it at the end.
 */
import pg from 'pg';
import postgres from 'postgres';

const ADMIN_URL = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'restock_bench_drivers';
const SECONDS = Number(process.env.SECONDS ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const IN_FLIGHT = 50;
const POOL = 10;
const ROWS = 10_000;

const SELECT = 'SELECT id, data::text AS data, version FROM things WHERE id = $1';
const INSERT = 'INSERT INTO things (data) VALUES ($1::jsonb) RETURNING id, data::text AS data, version';
const UPDATE =
  'UPDATE things SET data = data || $1::jsonb, version = version + 1 WHERE id = $2 RETURNING id, data::text AS data, version';

interface Driver {
  name: string;
  select(id: number): Promise<unknown>;
  insert(data: string): Promise<unknown>;
  update(id: number, patch: string): Promise<unknown>;
  close(): Promise<void>;
}

function nodePostgres(url: string): Driver {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  return {
    name: 'pg',
    select: (id) => pool.query({ name: 'select', text: SELECT, values: [id] }),
    insert: (data) => pool.query({ name: 'insert', text: INSERT, values: [data] }),
    update: (id, patch) => pool.query({ name: 'update', text: UPDATE, values: [patch, id] }),
    close: () => pool.end(),
  };
}

function postgresJs(url: string): Driver {
  const sql = postgres(url, { max: POOL, prepare: true, onnotice: () => {} });
  return {
    name: 'postgres.js',
    select: (id) => sql.unsafe(SELECT, [id], { prepare: true }),
    insert: (data) => sql.unsafe(INSERT, [data], { prepare: true }),
    update: (id, patch) => sql.unsafe(UPDATE, [patch, id], { prepare: true }),
    close: () => sql.end(),
  };
}

/** Runs `op` with IN_FLIGHT concurrent loops for SECONDS; returns operations per second. */
async function measure(op: (i: number) => Promise<unknown>): Promise<number> {
  let done = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (Date.now() < until) {
        await op(done);
        done++;
      }
    }),
  );
  return done / SECONDS;
}

async function main() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
  await admin.query(`CREATE DATABASE ${DB}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DB}`;
  const setup = new pg.Client({ connectionString: url.href });
  await setup.connect();
  await setup.query(
    'CREATE TABLE things (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, data jsonb NOT NULL, version int NOT NULL DEFAULT 1)',
  );
  await setup.query(
    `INSERT INTO things (data) SELECT jsonb_build_object('name', 'item ' || i, 'price', i) FROM generate_series(1, ${ROWS}) i`,
  );
  await setup.end();

  const results: Record<string, Record<string, number[]>> = {};
  const scenarios: Record<string, (d: Driver) => (i: number) => Promise<unknown>> = {
    'select one': (d) => (i) => d.select((i % ROWS) + 1),
    insert: (d) => () => d.insert('{"name":"new","price":1}'),
    'merge update': (d) => (i) => d.update((i % ROWS) + 1, `{"n":${i}}`),
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const make of round % 2 ? [postgresJs, nodePostgres] : [nodePostgres, postgresJs]) {
      const driver = make(url.href);
      for (const [scenario, op] of Object.entries(scenarios)) {
        await measure(op(driver)); // warm-up: connections and prepared statements
        const rate = await measure(op(driver));
        const byDriver = results[scenario] ?? {};
        byDriver[driver.name] = [...(byDriver[driver.name] ?? []), rate];
        results[scenario] = byDriver;
      }
      await driver.close();
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  console.log(`${IN_FLIGHT} in flight, pool of ${POOL}, ${ROUNDS} rounds of ${SECONDS}s, median ops/s`);
  for (const [scenario, byDriver] of Object.entries(results)) {
    const a = median(byDriver.pg ?? []);
    const b = median(byDriver['postgres.js'] ?? []);
    console.log(
      `${scenario.padEnd(14)} pg ${a.toFixed(0).padStart(7)}   postgres.js ${b.toFixed(0).padStart(7)}   pg/postgres.js ${(a / b).toFixed(2)}`,
    );
  }
  await admin.query(`DROP DATABASE ${DB}`);
  await admin.end();
}

await main();
