/**
 * restock over a PostgreSQL database made for one measurement: a first start makes the
 * tables and indexes, the records then go in directly (no HTTP), and a second start serves
 * them; the database is dropped after. For the scripts that measure a big collection.
 */
import pg from 'pg';
import { type BenchServer, startServer } from './servers.js';

export interface SeededPostgres {
  /** The server's `postgres` database, where the bench's own is made. */
  adminUrl: string;
  users: number;
  products: number;
  /** restock's environment besides DATABASE_URL. */
  env: Record<string, string>;
}

export async function onSeededPostgres<T>(
  seed: SeededPostgres,
  measure: (server: BenchServer) => Promise<T>,
): Promise<T> {
  const admin = new pg.Client({ connectionString: seed.adminUrl });
  await admin.connect();
  const name = `restock_bench_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(seed.adminUrl);
  url.pathname = `/${name}`;
  const env = { ...seed.env, DATABASE_URL: url.href };
  try {
    await (await startServer({ target: 'restock', database: '', pin: [], env })).stop();
    const db = new pg.Client({ connectionString: url.href });
    await db.connect();
    await db.query(`INSERT INTO users (data) SELECT jsonb_build_object('name', 'User ' || i,
      'email', 'user' || i || '@example.com', 'age', 18 + i % 60) FROM generate_series(1, ${seed.users}) i`);
    await db.query(`INSERT INTO products (data) SELECT jsonb_build_object('name', 'Product ' || i,
      'sku', 'SKU-' || lpad(i::text, 8, '0'), 'price', (i % 10000) / 100.0 + 1, 'stock', i % 500,
      'category', (ARRAY['kitchen', 'garden', 'toys', 'books'])[i % 4 + 1],
      'description', 'A fine product, number ' || i || ', made to last and priced to sell.')
      FROM generate_series(1, ${seed.products}) i`);
    await db.query('VACUUM ANALYZE products');
    await db.end();
    const server = await startServer({ target: 'restock', database: '', pin: [], env });
    try {
      return await measure(server);
    } finally {
      await server.stop();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** Fresh statistics for PostgreSQL's planner after a bulk seed, so that it picks the indexes a served database would. */
export async function analyzePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}
