/**
 * The benchmark's baseline: what the same work costs with no framework. A plain node:http
 * server over the same SQLite file, opened the same way (WAL, synchronous = FULL, the same
 * migrations) and running the same prepared statements as restock's store, one statement
 * (so one commit and one fsync) per write request. Records are answered the way a plain
 * server would: the stored JSON parsed, the system fields added, and JSON.stringify.
 *
 * It serves only what the scenarios ask for (read, list with filters and a sort, create,
 * merge, delete, and PUT tunnelled in a POST); it is a yardstick, not a second
 * implementation of the SPEC.
 *
 * Usage: node --import tsx bench/baseline-server.ts <database path> <port>
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Condition, FieldRef, FilterOp, ListQuery } from '../src/store/list-query-model.js';
import { mergedFields } from '../src/store/merge-patch.js';
import { indexedIn } from '../src/store/sql/index-sql.js';
import { selectPage } from '../src/store/sql/list-sql.js';
import { collectionSql, recordColumns } from '../src/store/sql/record-sql.js';
import { openConnection, statementRunner } from '../src/store/sqlite/connection.js';
import { sqliteAdapter, sqliteDialect } from '../src/store/sqlite/sqlite-dialect.js';
import { CATALOG } from './schema.js';

interface Row {
  id: number;
  data: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

const [path = 'bench-baseline.db', port = '3001'] = process.argv.slice(2);
const db = openConnection(path, CATALOG);
// Statements run as restock's SQLite driver runs them: prepared once, bound by name.
const run = statementRunner(db);
const first = (statement: Parameters<typeof run>[0]) => run(statement).rows[0] as Row | undefined;

function prepare(table: string) {
  const isIndexed = indexedIn(CATALOG.get(table));
  const columns = recordColumns(sqliteDialect);
  // The statement restock's list query builder makes for the first page of a query.
  const page = (query: ListQuery) =>
    selectPage({ dialect: sqliteDialect, adapter: sqliteAdapter }, isIndexed, table, columns, query);
  return { ...collectionSql(sqliteDialect, table), page };
}

/**
 * A page's query string read as plainly as it can be: `limit`, `sort=a,-b` and filters
 * `field=value` or `field[op]=value` on top-level fields, a value that reads as a number
 * being one. No checks: the bench sends only what restock accepts.
 */
function listQuery(search: string): ListQuery {
  const params = new URLSearchParams(search);
  const field = (name: string): FieldRef => (name === 'id' ? 'id' : { path: [name] });
  const where: Condition[] = [];
  for (const [key, raw] of params) {
    const [, name = key, op = 'eq'] = /^([^[]+)\[(\w+)\]$/.exec(key) ?? [];
    if (key === 'limit' || key === 'sort') continue;
    const value = raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    where.push({ field: field(name), op: op as FilterOp, value });
  }
  const sort = (params.get('sort') ?? '')
    .split(',')
    .filter(Boolean)
    .map((name) => ({ field: field(name.replace(/^-/, '')), descending: name.startsWith('-') }));
  return { where, sort, limit: Number(params.get('limit') ?? 100) };
}

const collections: Record<string, { plural: string; statements: ReturnType<typeof prepare> }> = {
  user: { plural: 'users', statements: prepare('users') },
  product: { plural: 'products', statements: prepare('products') },
};
const byPlural = Object.fromEntries(Object.values(collections).map((c) => [c.plural, c]));

function toRecord(row: Row): Record<string, unknown> {
  return { id: row.id, ...JSON.parse(row.data), createdAt: row.createdAt, updatedAt: row.updatedAt };
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body);
}

function sendRow(res: ServerResponse, status: number, row: Row | undefined, headers: Record<string, string> = {}) {
  if (!row) return send(res, 404, '{"status":404}');
  send(res, status, JSON.stringify(toRecord(row)), { etag: `"${row.id}-${row.version}"`, ...headers });
}

/** The client's fields of a body as compact JSON text, or undefined when it is not an object. */
function fieldsOf(body: string): string | undefined {
  try {
    const value = JSON.parse(body);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    delete value.id;
    delete value.createdAt;
    delete value.updatedAt;
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function handle(req: IncomingMessage, res: ServerResponse, body: string) {
  const [pathname = '/', query = ''] = (req.url ?? '/').split('?', 2);
  const [, name = '', rawId] = pathname.split('/');
  const override = req.headers['http-x-http-method'];
  const method = req.method === 'POST' && typeof override === 'string' ? override.trim().toUpperCase() : req.method;
  const now = new Date().toISOString();

  const list = byPlural[name];
  if (list && !rawId && method === 'GET') {
    const { limit, ...filters } = listQuery(query);
    // One record more than the page, as restock reads it, to know whether a next page exists.
    const rows = run(list.statements.page({ ...filters, limit: limit + 1 })).rows as unknown as Row[];
    const page = rows.slice(0, limit);
    const headers: Record<string, string> = {};
    // The next page from the last record's position (p0, p1, …: the sort's values, id last).
    const last = page[page.length - 1] as (Row & Record<string, unknown>) | undefined;
    if (rows.length > limit && last) {
      const position = Object.keys(last).filter((column) => /^p\d+$/.test(column));
      const cursor = Buffer.from(JSON.stringify(position.map((column) => last[column]))).toString('base64url');
      headers.link = `</${name}/?${query ? `${query}&` : ''}cursor=${cursor}>; rel="next"`;
    }
    return send(res, 200, JSON.stringify(page.map(toRecord)), headers);
  }
  const one = collections[name];
  if (!one) return send(res, 404, '{"status":404}');
  const s = one.statements;
  if (!rawId) {
    if (method !== 'POST') return send(res, 405, '{"status":405}');
    const fields = fieldsOf(body);
    if (fields === undefined) return send(res, 400, '{"status":400}');
    const row = first(s.insert({ data: fields, now })) as Row;
    return sendRow(res, 201, row, { location: `/${name}/${row.id}/` });
  }
  const id = Number(rawId);
  switch (method) {
    case 'GET':
      return sendRow(res, 200, first(s.get({ id })));
    case 'PUT': {
      const fields = fieldsOf(body);
      if (fields === undefined) return send(res, 400, '{"status":400}');
      // As the store merges: read, merge in the application, write, in one transaction.
      const merged = db.transaction(() => {
        const current = first(s.lock({ id }));
        return current && first(s.update({ id, data: mergedFields(current.data, fields), now }));
      })();
      return sendRow(res, 200, merged);
    }
    case 'DELETE':
      return sendRow(res, 200, first(s.remove({ id })));
    default:
      return send(res, 405, '{"status":405}');
  }
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    body += chunk;
  });
  req.on('end', () => {
    try {
      handle(req, res, body);
    } catch (error) {
      console.error(error);
      send(res, 500, '{"status":500}');
    }
  });
});

server.listen(Number(port), '127.0.0.1', () => {
  console.log(`baseline listening at http://127.0.0.1:${(server.address() as { port: number }).port}`);
});
process.once('SIGTERM', () =>
  server.close(() => {
    db.close();
    process.exit(0);
  }),
);
