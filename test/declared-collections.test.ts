/**
 * Collections declared by schema files: a folder serves exactly the collections it holds,
 * with their paths, indexes, docs and commands; a collection that leaves the folder keeps its
 * table and loses its routes. (The contract itself runs on a declared collection in
 * records.test.ts and paths.test.ts.)
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { ConfigError, defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { body, create, problem } from './helpers/app.js';
import { cli } from './helpers/cli.js';
import { DECLARED_SCHEMAS } from './helpers/contract-collections.js';
import { injectAs, withKeys } from './helpers/keys.js';
import { shopWithOpenSchemas } from './helpers/open-shop.js';
import { checkAgainstDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/** A schema folder holding the declared fixture (boxes) and, when asked, a crates collection. */
function schemaFolder({ crates }: { crates: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-declared-'));
  copyFileSync(join(DECLARED_SCHEMAS, 'boxes.schema.json'), join(dir, 'boxes.schema.json'));
  if (crates)
    writeFileSync(
      join(dir, 'crates.schema.json'),
      '{"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}',
    );
  return dir;
}

/** The names of the indexes the database keeps on `table`. */
async function indexNames(db: TestDatabase, kind: string, table: string): Promise<string[]> {
  if (kind === 'sqlite') {
    const sqlite = new Database(new URL(db.url.replace(/^sqlite:/, 'file:')).pathname, { readonly: true });
    try {
      const rows = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(table);
      return (rows as { name: string }[]).map((row) => row.name);
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client(db.url);
  await client.connect();
  try {
    return (await client.query('SELECT indexname FROM pg_indexes WHERE tablename = $1', [table])).rows.map(
      (row: { indexname: string }) => row.indexname,
    );
  } finally {
    await client.end();
  }
}

for (const kind of STORE_KINDS) {
  describe(`collections declared by schema files (${kind.name})`, () => {
    it("serves exactly the folder's collections, with their singular, indexes and docs", async () => {
      const db = await kind.create();
      const app = await buildApp({
        config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url, schemas: schemaFolder({ crates: true }) }),
        logStream: false,
      });
      const contract = checkAgainstDocument(app);
      try {
        await app.ready();
        await contract.load();
        const index = body<{ collections: Record<string, { create: string }> }>(await app.inject({ url: '/' }));
        assert.deepEqual(Object.keys(index.collections), ['boxes', 'crates']);
        assert.equal(index.collections.crates?.create, '/crate/', 'the plural less its s');
        assert.equal((await app.inject({ url: '/users/' })).statusCode, 404, 'the defaults are not served');

        const crate = await create(app, 'crate', { label: 'fragile' });
        assert.equal((await app.inject({ method: 'POST', url: '/crate/', payload: {} })).statusCode, 422);
        assert.equal(body(await app.inject({ url: `/crates/${crate.id}` })).label, 'fragile');

        const names = (await indexNames(db, kind.name, 'boxes')).join(' ');
        assert.match(names, /boxes_by_name_/, names);
        assert.match(names, /boxes_by_size_depth_/, names);

        const paths = Object.keys(body<{ paths: object }>(await app.inject({ url: '/openapi.json' })).paths);
        for (const path of ['/boxes/', '/box/{id}/', '/box/', '/crates/', '/crate/{id}/']) {
          assert.ok(paths.includes(path), `${path} in ${paths.join(' ')}`);
        }
        assert.ok(!paths.some((path) => path.startsWith('/user')), 'no users in the docs');
        assert.deepEqual(contract.violations, [], 'every exchange as the document says');
        assert.ok(
          contract.matched.some((exchange) => exchange.startsWith('createCrate ')),
          contract.matched.join(', '),
        );
      } finally {
        await app.close();
        await db.drop();
      }
    });

    it('keeps the table of a collection that leaves the folder, and drops only its routes', async () => {
      const db = await kind.create();
      const open = (crates: boolean) =>
        buildApp({
          config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url, schemas: schemaFolder({ crates }) }),
          logStream: false,
        });
      try {
        let app = await open(true);
        const crate = await create(app, 'crate', { label: 'kept' });
        await app.close();

        app = await open(false);
        assert.equal((await app.inject({ url: '/crates/' })).statusCode, 404);
        assert.equal((await app.inject({ url: `/crate/${crate.id}/` })).statusCode, 404);
        assert.equal((await app.inject({ url: '/boxes/' })).statusCode, 200);
        await app.close();

        app = await open(true);
        assert.equal(body(await app.inject({ url: `/crate/${crate.id}/` })).label, 'kept');
        await app.close();
      } finally {
        await db.drop();
      }
    });

    it('imports, exports and checks a declared collection from the command line', async () => {
      const db = await kind.create();
      try {
        const env = { SCHEMAS: schemaFolder({ crates: true }) };
        const records = '{"label":"a"}\n{"label":"b"}\n';
        const imported = await cli(db.url, ['import', '-', '--collection', 'crates'], records, env);
        assert.equal(imported.code, 0, imported.stderr);
        const exported = await cli(db.url, ['export', '--collection', 'crates'], '', env);
        assert.deepEqual(
          exported.stdout
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line).label),
          ['a', 'b'],
        );
        await assert.rejects(
          cli(db.url, ['export', '--collection', 'users'], '', env),
          (error: Error) =>
            error instanceof ConfigError && /must be one of boxes, crates, got "users"/.test(error.message),
        );
        assert.equal((await cli(db.url, ['check'], '', env)).code, 0);
      } finally {
        await db.drop();
      }
    });

    it('refuses a query naming a field no record can have: off a closed schema, or a password', async () => {
      const db = await kind.create();
      const app = await buildApp({
        // The shop with its products and users open, as the example's were: open schemas beside the closed orders.
        config: defaultConfig(withKeys({ maxEventLoopDelay: 0, databaseUrl: db.url, schemas: shopWithOpenSchemas() })),
        logStream: false,
      });
      try {
        await app.ready();
        const made = async (singular: string, payload: Record<string, unknown>) =>
          body<{ id: number }>(await injectAs(app, 'write', { method: 'POST', url: `/${singular}/`, payload }));
        const user = await made('user', { name: 'Ann', email: 'ann@example.com', password: 'a long password' });
        const product = await made('product', { name: 'Teapot' });
        await made('order', { userId: user.id, items: [{ productId: product.id, quantity: 2 }], status: 'placed' });
        const get = async (url: string) => injectAs(app, 'write', { url });
        const refused = async (url: string, parameter: string, detail: RegExp) => {
          const found = problem(await get(url), 400, 'invalid-query');
          assert.match(found.detail, detail, url);
          assert.deepEqual(
            body<{ errors: { pointer: string }[] }>(await get(url)).errors.map((error) => error.pointer),
            [`/${parameter}`],
            url,
          );
        };
        // orders says additionalProperties: false, so a misspelt field is a mistake, not an empty page.
        const typo = /stauts, which no record of this collection has; did you mean status\?/;
        await refused('/orders/?stauts=placed', 'stauts', typo);
        await refused('/orders/?stauts[in]=placed,paid', 'stauts[in]', typo);
        await refused('/orders/?sort=-stauts', 'sort', typo);
        await refused('/orders/?fields=status,stauts', 'fields', typo);
        await refused('/orders/?stauts.code=1', 'stauts.code', typo);
        await refused('/orders/?shipping=1', 'shipping', /shipping, which no record of this collection has\.$/);
        await refused('/orders/events/?stauts=placed', 'stauts', typo);
        // Its own fields, the system fields and paths inside its fields still read.
        const known = '/orders/?status=placed&createdAt[gt]=2000&sort=-updatedAt,status';
        assert.equal(body<unknown[]>(await get(known)).length, 1);
        assert.equal(body<unknown[]>(await get('/orders/?fields=id,status,items.quantity&sort=id')).length, 1);
        assert.equal(
          (await injectAs(app, 'write', { method: 'HEAD', url: '/orders/events/?status=placed' })).statusCode,
          200,
        );
        // users is open here: any field filters, but its password is never stored, so never queried.
        assert.deepEqual(body(await get('/users/?nickname=Ann')), []);
        const withheld = /password, which is never stored and cannot be queried/;
        await refused('/users/?password=a%20long%20password', 'password', withheld);
        await refused('/users/?sort=password', 'sort', withheld);
        await refused('/users/?fields=password', 'fields', withheld);
        await refused('/users/events/?password[ne]=x', 'password[ne]', withheld);
        // A collection with an open schema takes any name, as before.
        assert.deepEqual(body(await get('/products/?stauts=placed&sort=-stauts')), []);
      } finally {
        await app.close();
        await db.drop();
      }
    });
  });
}

describe('the INDEXES setting beside declared collections', () => {
  it('still adds its fields, with a warning, and refuses an unknown collection', async () => {
    const schemas = schemaFolder({ crates: false });
    const declared = loadCatalog({ schemas, indexes: [{ collection: 'boxes', path: ['colour'] }] });
    const indexes = declared.collections.flatMap((collection) => collection.indexes);
    assert.deepEqual(
      indexes.map((field) => `${field.collection}.${field.path.join('.')}`),
      ['boxes.name', 'boxes.size.depth', 'boxes.colour'],
    );
    assert.match(declared.warnings.join('\n'), /INDEXES is deprecated with SCHEMAS.*x-index/);
    assert.throws(
      () => loadCatalog({ schemas, indexes: [{ collection: 'users', path: ['email'] }] }),
      (error: Error) =>
        error instanceof ConfigError && /INDEXES names an unknown collection "users"/.test(error.message),
    );

    const lines: { level: number; msg: string }[] = [];
    const config = defaultConfig({ databaseUrl: 'sqlite::memory:', schemas, indexes: indexes.slice(2) });
    const app = await buildApp({ config, logStream: { write: (line) => lines.push(JSON.parse(line)) } });
    await app.close();
    assert.ok(lines.some((line) => line.level === 40 && /INDEXES is deprecated/.test(line.msg)));
  });

  it('indexes users.email, products.sku and products.price with no settings at all', () => {
    const { collections, warnings } = loadCatalog({ schemas: '', indexes: [] });
    const indexes = collections.flatMap((collection) => collection.indexes);
    assert.deepEqual(
      indexes.map((field) => `${field.collection}.${field.path.join('.')}`),
      ['users.email', 'products.sku', 'products.price'],
    );
    assert.deepEqual(warnings, []);
  });
});
