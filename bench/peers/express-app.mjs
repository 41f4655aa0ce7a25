/**
 * A peer in the benchmark (bench/README.md, Peers): the users and products API as a careful
 * reader of the Express tutorials writes it. Express 5, method-override, better-sqlite3, a
 * column per field (bench/peers/schema.sql), one prepared statement per operation, each
 * write one statement in autocommit (one fsync).
 *
 * Usage: node bench/peers/express-app.mjs <database path> <port>
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import express from 'express';
import methodOverride from 'method-override';

// better-sqlite3 from the project's node_modules: 13 crashes on Node 20, where the project
// installs 12 through `restock-sqlite-node20` (src/store/sqlite/sqlite-library.ts).
const nodeMajor = Number(process.versions.node.split('.')[0]);
const Database = createRequire(import.meta.url)(nodeMajor >= 22 ? 'better-sqlite3' : 'restock-sqlite-node20');

const [path = 'express-app.db', port = '3002'] = process.argv.slice(2);
const db = new Database(path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(readFileSync(new URL('./schema.sql', import.meta.url), 'utf8'));

const collections = {
  user: { table: 'users', columns: ['name', 'email', 'age', 'address', 'tags'], json: ['address', 'tags'] },
  product: { table: 'products', columns: ['name', 'sku', 'price', 'stock', 'category', 'description'], json: [] },
};
for (const c of Object.values(collections)) {
  const columns = c.columns.join(', ');
  const values = c.columns.map((column) => `@${column}`).join(', ');
  // PUT merges: a column not in the body keeps its value; fields without a column (a
  // product's `sale`, say) are kept in `extra`, a JSON object merged with json_patch.
  const sets = c.columns.map((column) => `${column} = coalesce(@${column}, ${column})`).join(', ');
  c.get = db.prepare(`SELECT * FROM ${c.table} WHERE id = ?`);
  c.page = db.prepare(`SELECT * FROM ${c.table} ORDER BY id LIMIT ?`);
  c.insert = db.prepare(
    `INSERT INTO ${c.table} (${columns}, extra, created_at, updated_at) VALUES (${values}, @extra, @now, @now) RETURNING *`,
  );
  c.update = db.prepare(
    `UPDATE ${c.table} SET ${sets}, extra = json_patch(extra, @extra), updated_at = @now WHERE id = @id RETURNING *`,
  );
  c.remove = db.prepare(`DELETE FROM ${c.table} WHERE id = ? RETURNING *`);
}
// Products by price (either end may be open), cheapest first, on the index of price.
const byPrice = db.prepare('SELECT * FROM products WHERE price BETWEEN @min AND @max ORDER BY price, id LIMIT @limit');

function toRecord(c, row) {
  const { id, extra, created_at, updated_at, ...fields } = row;
  for (const column of c.json) if (fields[column] !== null) fields[column] = JSON.parse(fields[column]);
  return { id, ...fields, ...JSON.parse(extra), createdAt: created_at, updatedAt: updated_at };
}

/** A body's fields as the statements' parameters; null for a column it does not give. */
function parameters(c, body) {
  const params = { now: new Date().toISOString() };
  const extra = {};
  for (const [key, value] of Object.entries(body)) {
    if (c.columns.includes(key)) params[key] = c.json.includes(key) ? JSON.stringify(value) : value;
    else if (!['id', 'createdAt', 'updatedAt'].includes(key)) extra[key] = value;
  }
  for (const column of c.columns) params[column] ??= null;
  return { ...params, extra: JSON.stringify(extra) };
}

const isObject = (body) => typeof body === 'object' && body !== null && !Array.isArray(body);

const app = express();
app.set('query parser', 'extended'); // price[gte]=10 reads as { price: { gte: '10' } }
app.use(methodOverride('X-HTTP-Method-Override'));
// method-override reads a name as a header only when it starts with `X-` (else it is a query
// parameter), so this one is read by a function.
app.use(methodOverride((req) => req.headers['http-x-http-method']));
app.use(express.json());

for (const [name, c] of Object.entries(collections)) {
  const send = (res, row, status = 200) =>
    row ? res.status(status).json(toRecord(c, row)) : res.status(404).json({ status: 404 });

  app.get(`/${c.table}/`, (req, res) => {
    const limit = Math.min(Number(req.query.limit) || 100, 1000);
    const { price, sort } = req.query;
    const rows =
      c.table === 'products' && (price || sort === 'price')
        ? byPrice.all({ min: Number(price?.gte ?? -Infinity), max: Number(price?.lte ?? Infinity), limit })
        : c.page.all(limit);
    res.json(rows.map((row) => toRecord(c, row)));
  });
  app.post(`/${name}/`, (req, res) => {
    if (!isObject(req.body)) return res.status(400).json({ status: 400 });
    const row = c.insert.get(parameters(c, req.body));
    send(res.location(`/${name}/${row.id}/`), row, 201);
  });
  app.get(`/${name}/:id/`, (req, res) => send(res, c.get.get(Number(req.params.id))));
  app.put(`/${name}/:id/`, (req, res) => {
    if (!isObject(req.body)) return res.status(400).json({ status: 400 });
    send(res, c.update.get({ ...parameters(c, req.body), id: Number(req.params.id) }));
  });
  app.delete(`/${name}/:id/`, (req, res) => send(res, c.remove.get(Number(req.params.id))));
}

app.listen(Number(port), '127.0.0.1', (error) => {
  if (error) throw error;
  console.log(`express app listening at http://127.0.0.1:${port}`);
});
