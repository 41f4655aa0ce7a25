/**
 * Who should write a page's JSON on PostgreSQL: `node --import tsx bench/pg-page-json.ts
 * [--pages N]`. A page of 100 products (of 10,000) read three ways, the same bytes each:
 *
 * - `node`: the rows' columns (the stored JSON as text, id, timestamps); Node splices the
 *   system fields in as text and joins the records (what restock does);
 * - `row-text`: PostgreSQL splices each record's text; Node joins them;
 * - `page-text`: PostgreSQL writes the whole page (`string_agg`); Node passes it on.
 *
 * Sequential requests on one connection, rounds alternating, so wall time per page is
 * Node's CPU plus the database's plus the round trip. Prints the median over rounds.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { median } from './median.js';

const { values: args } = parseArgs({
  options: {
    pages: { type: 'string', default: '1500' },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const PAGES = Number(args.pages);
const ROUNDS = 5;
const database = `restock_page_json_${process.pid}`;

const RECORD_SQL = `'{"id":' || id || ',' || substr(data::text, 2, length(data::text) - 2) || ',"createdAt":"' || created_at || '","updatedAt":"' || updated_at || '"}'`;
const WAYS: Record<string, (c: pg.Client) => Promise<string>> = {
  async node(c) {
    const { rows } = await c.query({
      name: 'node',
      text: 'SELECT id, data::text AS data, version, created_at AS "createdAt", updated_at AS "updatedAt", id AS p0 FROM products ORDER BY id LIMIT $1',
      values: [101],
    });
    const records = rows
      .slice(0, 100)
      .map((r) => `{"id":${r.id},${r.data.slice(1, -1)},"createdAt":"${r.createdAt}","updatedAt":"${r.updatedAt}"}`);
    return `[${records.join(',')}]`;
  },
  async 'row-text'(c) {
    const { rows } = await c.query({
      name: 'row-text',
      text: `SELECT ${RECORD_SQL} AS json, id AS p0 FROM products ORDER BY id LIMIT $1`,
      values: [101],
    });
    return `[${rows
      .slice(0, 100)
      .map((r) => r.json)
      .join(',')}]`;
  },
  async 'page-text'(c) {
    const { rows } = await c.query({
      name: 'page-text',
      text: `SELECT '[' || string_agg(${RECORD_SQL}, ',' ORDER BY id) || ']' AS page FROM (SELECT * FROM products ORDER BY id LIMIT $1) p`,
      values: [100],
    });
    return rows[0].page;
  },
};

const admin = new pg.Client(args['postgres-url']);
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const url = new URL(args['postgres-url']);
url.pathname = `/${database}`;
const client = new pg.Client(url.href);
try {
  await client.connect();
  await client.query(
    'CREATE TABLE products (id bigint PRIMARY KEY, data jsonb, version int, created_at text, updated_at text)',
  );
  await client.query(`INSERT INTO products SELECT i, jsonb_build_object('name', 'Product ' || i, 'sku', 'SKU-' || i,
    'price', (i % 10000) / 100.0 + 1, 'stock', i % 500, 'category', 'kitchen',
    'description', 'A fine product, number ' || i || ', made to last and priced to sell.'),
    1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM generate_series(1, 10000) i`);
  await client.query('ANALYZE products');
  const pages: string[] = [];
  for (const way of Object.values(WAYS)) pages.push(await way(client));
  if (new Set(pages).size !== 1) throw new Error('the ways do not write the same page');
  const figures = new Map<string, { wall: number[]; cpu: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, way] of Object.entries(WAYS)) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < PAGES; i++) await way(client);
      const used = process.cpuUsage(cpu);
      const mine = figures.get(name) ?? { wall: [], cpu: [] };
      mine.wall.push(((performance.now() - started) * 1000) / PAGES);
      mine.cpu.push((used.user + used.system) / PAGES);
      figures.set(name, mine);
    }
  }
  console.log('way        wall µs/page  Node CPU µs/page');
  for (const [name, { wall, cpu }] of figures) {
    console.log(`${name.padEnd(10)} ${median(wall).toFixed(0).padStart(12)}  ${median(cpu).toFixed(0).padStart(16)}`);
  }
} finally {
  await client.end();
  await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  await admin.end();
}
