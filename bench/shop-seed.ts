/**
 * The example shop (schemas/shop) seeded through restock's own store, for the accounts and
 * rules scenarios (bench/accounts.ts): two shoppers with passwords, a few products, and
 * orders that alternate between the two shoppers, so that a shopper's orders are every
 * other id and a list under the owner rule must find them through the index of userId,
 * not by reading the table in order. Through the store, not HTTP, because an order is a
 * write with references checked and 200,000 of them over the API would take minutes here.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { hashPassword } from '../src/records/accounts/index.js';
import { openStore, storeOptionsOf } from '../src/store/open-store.js';
import { analyzePostgres } from './seeded-postgres.js';
import { type BenchServer, cpuSecondsOf, waitUntilIdle } from './servers.js';
import { type LoadOptions, type LoadResult, runLoad } from './wrk.js';

export const SHOP_SCHEMAS = 'schemas/shop';
export const SHOPPER = { email: 'shopper@example.com', password: 'correct horse battery staple' };

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** What the scenarios need to know of the seeded shop. */
export interface SeededShop {
  /** The shopper's user id: the owner of every order a scenario reads. */
  shopperId: number;
  /** The shopper's order ids in id order, to build the cursor of a deep page and check it. */
  ownIds: number[];
}

/** An empty database for one session: restock's DATABASE_URL, the SQLite file (if any), and how to drop it. */
export interface Scratch {
  url: string;
  sqlitePath: string;
  /**
   * CPU seconds so far of each of the database's own processes (PostgreSQL's backends
   * serving it), by pid; none for SQLite, which runs inside restock's process.
   */
  backendCpu(): Promise<Map<number, number>>;
  /**
   * Requests' statements and transactions running on the database now: the backends of
   * restock's main pool (application_name `restock`, not its change sequencer's or feeds')
   * that are not idle; 0 for SQLite, whose transactions are restock's own.
   */
  openTransactions(): Promise<number>;
  drop(): Promise<void>;
}

/** The CPU seconds the processes of `after` used since `before` (a process new since then, all of its own). */
export function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}

/** What a run of scenarios over the example shop takes (the accounts' and the batches'). */
export interface ShopRunOptions {
  scenarios: readonly string[];
  stores: readonly string[];
  reps: number;
  duration: number;
  warmup: number;
  connections: number;
  pins: { server: string[]; load: string[] };
  /** `--env`, for restock. */
  env: Record<string, string>;
  work: string;
  log: (line: string) => void;
}

/**
 * One load run against restock over a scratch database, with the CPU it took: restock's
 * own and, on PostgreSQL, its backends' (in microseconds), once restock is idle again.
 */
export async function measuredLoad(
  server: BenchServer,
  scratch: Scratch,
  options: LoadOptions,
): Promise<{ result: LoadResult; cpuUs: number; databaseUs: number }> {
  const [cpuBefore, databaseBefore] = [server.cpuSeconds(), await scratch.backendCpu()];
  const result = await runLoad(options);
  const [cpuUs, databaseUs] = [
    (server.cpuSeconds() - cpuBefore) * 1e6,
    cpuSince(databaseBefore, await scratch.backendCpu()) * 1e6,
  ];
  await waitUntilIdle(server);
  return { result, cpuUs, databaseUs };
}

/** A new SQLite file in `work`, or a new PostgreSQL database on TEST_POSTGRES_URL's server (undefined if none answers). */
export async function scratchDatabase(store: string, work: string): Promise<Scratch | undefined> {
  if (store === 'sqlite') {
    const sqlitePath = join(work, 'shop.db');
    const drop = async () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqlitePath}${suffix}`, { force: true });
    };
    await drop();
    return {
      url: `sqlite:${sqlitePath}`,
      sqlitePath,
      backendCpu: async () => new Map(),
      openTransactions: async () => 0,
      drop,
    };
  }
  const name = `restock_bench_shop_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  // On this machine PostgreSQL is local, so its backends' CPU time is in /proc like restock's.
  const backendCpu = async () => {
    const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]);
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        cpu.set(pid, cpuSecondsOf(pid));
      } catch {
        // gone since the query: its time is lost, as for one that ends during a run
      }
    }
    return cpu;
  };
  const openTransactions = async () => {
    const { rows } = await admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'restock' AND state <> 'idle'`,
      [name],
    );
    return Number(rows[0]?.n ?? 0);
  };
  return { url: url.href, sqlitePath: '', backendCpu, openTransactions, drop };
}

const BATCH = 5_000;
const PRODUCTS = 20;

/**
 * Seeds `url` (sqlite:… or postgres://…, empty) with `ownOrders` orders of the shopper and as
 * many of another user's, interleaved; both passwords are one hash, at the default cost.
 */
export async function seedShop(url: string, ownOrders: number): Promise<SeededShop> {
  const config = defaultConfig({ schemas: SHOP_SCHEMAS, databaseUrl: url });
  const catalog = loadCatalog(config);
  const store = await openStore(url, catalog, { ...storeOptionsOf(config), statementTimeoutMs: 600_000 });
  try {
    const hash = await hashPassword(SHOPPER.password);
    const users = await store
      .collection('users')
      .createMany(
        [
          JSON.stringify({ name: 'Grace Shopper', email: SHOPPER.email }),
          JSON.stringify({ name: 'Other Shopper', email: 'other@example.com' }),
        ],
        undefined,
        [{ secret: hash }, { secret: hash }],
      );
    const [shopper, other] = users.map((user) => user.id) as [number, number];
    const products = await store
      .collection('products')
      .createMany(
        Array.from({ length: PRODUCTS }, (_, i) =>
          JSON.stringify({ name: `Product ${i}`, sku: `P-${i}`, price: 10 + i }),
        ),
      );
    const productIds = products.map((product) => product.id);
    const orders = store.collection('orders');
    const ownIds: number[] = [];
    for (let from = 0; from < 2 * ownOrders; from += BATCH) {
      const count = Math.min(BATCH, 2 * ownOrders - from);
      const batch = Array.from({ length: count }, (_, k) => {
        const i = from + k;
        return JSON.stringify({
          userId: i % 2 === 0 ? shopper : other,
          items: [
            { productId: productIds[i % PRODUCTS], quantity: 1 + (i % 3), price: 10 },
            { productId: productIds[(i + 7) % PRODUCTS], quantity: 1, price: 4.5 },
          ],
          status: 'placed',
        });
      });
      const created = await orders.createMany(batch);
      // createMany answers in the order given (ids ascending): even positions are the shopper's.
      for (const [k, order] of created.entries()) if ((from + k) % 2 === 0) ownIds.push(order.id);
    }
    return { shopperId: shopper, ownIds };
  } finally {
    await store.close();
    // PostgreSQL's planner needs statistics of the fresh rows to pick the userId index.
    if (url.startsWith('postgres')) await analyzePostgres(url);
  }
}
