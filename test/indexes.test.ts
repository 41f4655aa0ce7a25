/**
 * The configured indexes are used, and used to seek: the SQL the stores build for a filter
 * or a sort on an indexed field is planned through that field's expression index on both
 * databases (EXPLAIN on a real database). A filter must be an index seek (SQLite `SEARCH …
 * USING INDEX name (…)`, PostgreSQL an index scan with an `Index Cond`); a plain sort
 * must read the index in order, with no sort step. A full scan of the index with the
 * filter applied row by row does not count: it costs as much as a scan of the table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { parseListQuery, type RawListQuery } from '../src/records/list-query.js';
import { openStore } from '../src/store/open-store.js';
import { postgresAdapter, postgresDialect } from '../src/store/postgres/postgres-dialect.js';
import { FOLD_CASE_FUNCTION } from '../src/store/sql/case-fold.js';
import type { SqlWriter } from '../src/store/sql/engine.js';
import { createIndexStatements, indexedIn } from '../src/store/sql/index-sql.js';
import { selectPage } from '../src/store/sql/list-sql.js';
import { successor } from '../src/store/sql/list-terms.js';
import { sqliteAdapter, sqliteDialect } from '../src/store/sqlite/sqlite-dialect.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import type { ListQuery, Position } from '../src/store/store.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const { maxFieldNameLength } = defaultConfig();
const catalog = loadCatalog(defaultConfig());
const indexes = catalog.collections.flatMap((collection) => collection.indexes);
const SQLITE: SqlWriter = { dialect: sqliteDialect, adapter: sqliteAdapter };
const POSTGRES: SqlWriter = { dialect: postgresDialect, adapter: postgresAdapter };

/** The SQL of a page of `table` as the store writes it, for `writer`'s engine. */
const pageSql = (writer: SqlWriter, table: string, query: ListQuery) =>
  selectPage(writer, indexedIn(catalog.get(table)), table, 'id, data', query);

/**
 * Each case is a query string as a client sends it; the index it must use is the one on
 * the field it filters on (or, with no filter, sorts by). `after` continues after a
 * position, as a cursor does.
 */
const CASES: { table: string; query: string; after?: Position }[] = [
  { table: 'products', query: 'sort=price' },
  { table: 'products', query: 'sort=-price' },
  { table: 'products', query: 'sort=-price', after: [1, 500, '', 10] },
  { table: 'products', query: 'sort=sku' },
  { table: 'users', query: 'sort=email' },
  { table: 'products', query: 'price=19.5' },
  { table: 'products', query: 'price[gte]=990&sort=price' },
  { table: 'products', query: 'price[gte]=990&sort=-price' },
  { table: 'products', query: 'sku=SKU-42' },
  { table: 'products', query: 'sku[in]=SKU-1,SKU-2' },
  // A seek of the prefix's range: from the prefix to its successor (list-terms.ts).
  { table: 'products', query: 'sku[startsWith]=SKU-42' },
  { table: 'users', query: 'email=u42@example.com' },
];

/** What a plan does, in the same terms for both databases. */
interface Plan {
  /** Every read of the table or of one of its indexes. */
  reads: { index?: string; seeks: boolean }[];
  /** Whether the rows are sorted after they are read. */
  sorts: boolean;
  /** The plan as the database printed it, for messages. */
  text: string;
}

for (const kind of STORE_KINDS) {
  describe(`indexed fields (${kind.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await kind.create();
      const store = await openStore(db.url, catalog, {
        poolSize: 2,
        connectTimeoutMs: 5000,
        statementTimeoutMs: 15000,
      });
      // 5,000 rows, and PostgreSQL plans with real statistics (ANALYZE in planOf) rather
      // than with enable_seqscan=off: forcing the planner would only show that an index
      // can be used, not that it is chosen. The choice holds with a wide margin: the
      // planner already takes these indexes at 500 rows.
      const n = Array.from({ length: 5000 }, (_, i) => i);
      await store
        .collection('products')
        .createMany(n.map((i) => JSON.stringify({ sku: `SKU-${i}`, price: i % 1000, name: `Kettle ${i}` })));
      await store.collection('users').createMany(n.map((i) => JSON.stringify({ email: `u${i}@example.com` })));
      await store.close();
    });
    after(async () => {
      await db.drop();
    });

    for (const { table, query: text, after: position } of CASES) {
      const query: ListQuery = { ...parse(text), after: position };
      const filtered = query.where.length > 0;
      const index = indexOf(table, query);
      it(`plans ${table}?${text}${position ? ' after a cursor' : ''} as ${filtered || position ? 'a seek of' : 'a read in order of'} ${index}`, async () => {
        const plan = await planOf(kind.name, db.url, table, query);
        assert.ok(plan.reads.length > 0, `the table is read: ${plan.text}`);
        for (const read of plan.reads) {
          assert.equal(read.index, index, `every read goes through ${index}: ${plan.text}`);
          // A filter, or the position a cursor continues from, bounds the range read.
          if (filtered || position) assert.ok(read.seeks, `a seek, not a scan of the index: ${plan.text}`);
        }
        // A sorted first page reads the index in order and stops after `limit` rows. After
        // a cursor, SQLite reads a few ranges (one per sort term) and merges them, each at
        // most `limit` rows long: a sort, but of a page's worth of rows at any depth.
        if (query.sort.length > 0 && !position) assert.ok(!plan.sorts, `no sort step: ${plan.text}`);
      });
    }

    it('reads q= of three characters or more through the trigram index', async () => {
      for (const search of ['SKU-4242', 'ttle 12', 'é€ü']) {
        const lines = await searchPlan(kind.name, db.url, search);
        const index =
          kind.name === 'sqlite'
            ? /^SCAN products_search VIRTUAL TABLE INDEX/
            : /^Bitmap Index Scan on products_search$/;
        assert.ok(
          lines.some((line) => index.test(line)),
          `${search}: ${lines.join('\n')}`,
        );
        // The records themselves are fetched by id (SQLite) or from the index's bitmap (PostgreSQL), never scanned.
        const scan = kind.name === 'sqlite' ? /^SCAN products$/ : /^Seq Scan on products$/;
        assert.ok(!lines.some((line) => scan.test(line)), `${search}: ${lines.join('\n')}`);
      }
    });

    it('reads every record for a needle shorter than a trigram', async () => {
      const lines = await searchPlan(kind.name, db.url, 'k2');
      assert.ok(!lines.some((line) => /products_search/.test(line)), lines.join('\n'));
    });
  });
}

/** The plan of a first page of products with `q=search`, one line per step (PostgreSQL: per node). */
async function searchPlan(kind: string, url: string, search: string): Promise<string[]> {
  const query = { ...parse(`q=${encodeURIComponent(search)}`), limit: 101 };
  if (kind === 'sqlite') {
    const sql = pageSql(SQLITE, 'products', query);
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      // Planning needs the function to exist, not what it does.
      db.function(FOLD_CASE_FUNCTION, (text) => text);
      const named = Object.fromEntries(sql.values.map((v, i) => [`p${i + 1}`, v]));
      return (db.prepare(`EXPLAIN QUERY PLAN ${sql.text}`).all(named) as { detail: string }[]).map((r) => r.detail);
    } finally {
      db.close();
    }
  }
  const sql = pageSql(POSTGRES, 'products', query);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ANALYZE products');
    const { rows } = await client.query(`EXPLAIN ${sql.text}`, sql.values);
    return rows.map((row) =>
      String(row['QUERY PLAN'])
        .trim()
        .replace(/^->\s+/, '')
        .replace(/\s+\(cost=.*$/, ''),
    );
  } finally {
    await client.end();
  }
}

describe('the end of a prefix range', () => {
  it('is the prefix with its last code point raised, past surrogates and U+10FFFF', () => {
    assert.equal(successor('SKU-42'), 'SKU-43');
    assert.equal(successor('a\u{10FFFF}'), 'b');
    assert.equal(successor('\uD7FF'), '\uE000');
    assert.equal(successor('é'), 'ê');
    assert.equal(successor(''), undefined);
    assert.equal(successor('\u{10FFFF}'), undefined);
  });
});

/** A query string read as the list route reads it (with the route's page size plus one). */
function parse(text: string): ListQuery {
  const raw = { ...Object.fromEntries(new URLSearchParams(text)), limit: 101 };
  return parseListQuery(raw as RawListQuery, maxFieldNameLength).query;
}

/** The name of the configured index on the field `query` filters on, or else sorts by. */
function indexOf(table: string, query: ListQuery): string {
  const field = query.where[0]?.field ?? query.sort[0]?.field;
  assert.ok(typeof field === 'object', 'the case names a data field');
  const path = field.path.join('.');
  assert.ok(
    indexes.some((f) => f.collection === table && f.path.join('.') === path),
    `${table}.${path} is indexed by default`,
  );
  // The name as the stores create it (the same on both databases).
  const [statement] = createIndexStatements(sqliteDialect, [{ collection: table, path: field.path }]);
  const name = /CREATE INDEX IF NOT EXISTS "([^"]+)"/.exec(statement ?? '')?.[1];
  assert.ok(name, statement);
  return name;
}

async function planOf(kind: string, url: string, table: string, query: ListQuery): Promise<Plan> {
  return kind === 'sqlite' ? sqlitePlan(url, table, query) : postgresPlan(url, table, query);
}

/**
 * SQLite's EXPLAIN QUERY PLAN, one line per step: `SEARCH t USING INDEX i (<expr>=? …)` is
 * a seek (the parenthesis lists the index columns it is bounded by), `SCAN t USING INDEX
 * i` a read of the whole index in order, `SCAN t` a read of the table. Planned without
 * statistics, as the store runs: it never runs ANALYZE.
 */
function sqlitePlan(url: string, table: string, query: ListQuery): Plan {
  const sql = pageSql(SQLITE, table, query);
  const db = new Database(url.slice('sqlite:'.length), { readonly: true });
  try {
    const named = Object.fromEntries(sql.values.map((v, i) => [`p${i + 1}`, v]));
    const lines = (db.prepare(`EXPLAIN QUERY PLAN ${sql.text}`).all(named) as { detail: string }[]).map(
      (r) => r.detail,
    );
    const reads = lines.flatMap((line) => {
      const read = /^(SCAN|SEARCH) (\S+)(?: USING (?:COVERING )?INDEX (\S+))?( \(.+\))?$/.exec(line);
      if (read?.[2] !== table) return [];
      return [{ index: read[3], seeks: read[1] === 'SEARCH' && read[4] !== undefined }];
    });
    return { reads, sorts: lines.some((line) => /TEMP B-TREE FOR .*ORDER BY/.test(line)), text: lines.join('\n') };
  } finally {
    db.close();
  }
}

/** PostgreSQL node types that read an index; `Index Cond` on one of them is a seek. */
const INDEX_SCANS = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Index Scan']);

interface PostgresNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PostgresNode[];
}

/**
 * PostgreSQL's plan as JSON, so that each condition is known to belong to its node. A
 * Bitmap Heap Scan only fetches the rows its Bitmap Index Scans found: those are the reads.
 */
async function postgresPlan(url: string, table: string, query: ListQuery): Promise<Plan> {
  const sql = pageSql(POSTGRES, table, query);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`ANALYZE "${table}"`);
    const explained = await client.query(`EXPLAIN (FORMAT JSON) ${sql.text}`, sql.values);
    const text = await client.query(`EXPLAIN ${sql.text}`, sql.values);
    const nodes: PostgresNode[] = [];
    const visit = (node: PostgresNode) => {
      nodes.push(node);
      for (const child of node.Plans ?? []) visit(child);
    };
    visit((explained.rows[0]['QUERY PLAN'] as { Plan: PostgresNode }[])[0]?.Plan as PostgresNode);
    const reads = nodes
      .filter((node) =>
        INDEX_SCANS.has(node['Node Type'])
          ? true
          : node['Relation Name'] === table && node['Node Type'] !== 'Bitmap Heap Scan',
      )
      .map((node) => ({
        index: INDEX_SCANS.has(node['Node Type']) ? node['Index Name'] : undefined,
        seeks: node['Index Cond'] !== undefined,
      }));
    return {
      reads,
      sorts: nodes.some((node) => /Sort$/.test(node['Node Type'])),
      text: text.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'),
    };
  } finally {
    await client.end();
  }
}
