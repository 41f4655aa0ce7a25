/**
 * Collection schemas on every store: the example online-store schema (schemas/shop/)
 * accepting and rejecting, unique fields held by the database under concurrency, merges
 * checked as a whole, existing data left alone, and bad schema files refused at start.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { checkRecords } from '../src/commands/check.js';
import { ConfigError, defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/open-store.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { body, create, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { catalogOf } from './helpers/catalog.js';
import { OPEN_SHOP_SCHEMAS } from './helpers/open-shop.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { runCommand } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

/** Runs one statement on the database at `url`, outside restock. */
async function runSql(url: string, sql: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    db.exec(sql);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

const SHOP_SCHEMAS = OPEN_SHOP_SCHEMAS;

for (const kind of STORE_KINDS) {
  describe(`the example store schema (${kind.name})`, () => {
    const ctx = useApp(kind, { schemas: SHOP_SCHEMAS }, { contract: true });
    const post = (singular: string, payload: unknown, headers: Record<string, string> = {}) =>
      ctx.app.inject({
        method: 'POST',
        url: `/${singular}/`,
        headers: { ...JSON_HEADERS, ...headers },
        payload: JSON.stringify(payload),
      });
    const pointers = (response: Awaited<ReturnType<typeof post>>) =>
      (problem(response, 422, 'schema-violation').errors ?? []).map((e) => e.pointer).sort();

    it('users: name 1–200 characters and a valid email are required', async () => {
      assert.equal((await post('user', { name: 'Ada', email: 'ada@example.com' })).statusCode, 201);
      assert.deepEqual(pointers(await post('user', {})), ['/email', '/name'], 'every failure at once');
      assert.deepEqual(pointers(await post('user', { name: '', email: 'b@example.com' })), ['/name']);
      assert.deepEqual(pointers(await post('user', { name: 'x'.repeat(201), email: 'c@example.com' })), ['/name']);
      assert.equal((await post('user', { name: 'x'.repeat(200), email: 'c@example.com' })).statusCode, 201);
      assert.deepEqual(pointers(await post('user', { name: 'D', email: 'not an email' })), ['/email']);
      assert.deepEqual(pointers(await post('user', { name: 7, email: 'e@example.com' })), ['/name']);
    });

    it('users: email is unique without regard to case (409 naming it)', async () => {
      assert.equal((await post('user', { name: 'Grace', email: 'Grace@Example.com' })).statusCode, 201);
      const taken = problem(await post('user', { name: 'Other', email: 'grace@example.COM' }), 409, 'unique-conflict');
      assert.deepEqual(taken.errors, [{ pointer: '/email', message: 'is already taken' }]);
      assert.match(taken.detail, /email/);
    });

    it('products: price >= 0 with at most two decimals (exactly), currency, sku, stock', async () => {
      const good = { name: 'Teapot', price: 19.99, currency: 'EUR', sku: 'TEA-1', stock: 0 };
      assert.equal((await post('product', good)).statusCode, 201);
      for (const price of [0.07, 0, 1e6, 0.1, 1.1, 2.3]) {
        assert.equal((await post('product', { name: 'p', price })).statusCode, 201, `price ${price} is fine`);
      }
      for (const price of [19.999, -1, -0.01, 1.005, '1']) {
        assert.deepEqual(pointers(await post('product', { name: 'p', price })), ['/price'], `price ${price}`);
      }
      assert.equal((await post('product', { name: 'p', currency: 'JPY' })).statusCode, 201);
      for (const currency of ['eur', 'ABC', 'EURO', 978]) {
        const found = new Set(pointers(await post('product', { name: 'p', currency })));
        assert.deepEqual([...found], ['/currency'], String(currency));
      }
      for (const stock of [1.5, -1, '3']) {
        assert.deepEqual(pointers(await post('product', { name: 'p', stock })), ['/stock'], String(stock));
      }
      assert.deepEqual(pointers(await post('product', { price: 1 })), ['/name']);
      const all = await post('product', { name: '', price: -0.001, currency: 'x', sku: '', stock: -1 });
      assert.deepEqual(pointers(all), ['/currency', '/name', '/price', '/price', '/sku', '/stock']);
    });

    it('products: sku is unique (and products without one may be many)', async () => {
      assert.equal((await post('product', { name: 'a', sku: 'SKU-U' })).statusCode, 201);
      const taken = problem(await post('product', { name: 'b', sku: 'SKU-U' }), 409, 'unique-conflict');
      assert.deepEqual(taken.errors, [{ pointer: '/sku', message: 'is already taken' }]);
      assert.equal((await post('product', { name: 'c', sku: 'sku-u' })).statusCode, 201, 'sku is case-sensitive');
      assert.equal((await post('product', { name: 'no sku' })).statusCode, 201);
      assert.equal((await post('product', { name: 'no sku either' })).statusCode, 201);
    });

    it('gives one 201 and otherwise 409 to concurrent creates of one email', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          post('user', { name: `racer ${i}`, email: i % 2 ? 'RACE@example.com' : 'race@example.com' }),
        ),
      );
      const statuses = results.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [201, ...Array(9).fill(409)]);
      for (const refused of results.filter((r) => r.statusCode === 409)) {
        const taken = problem(refused, 409, 'unique-conflict');
        assert.deepEqual(taken.errors, [{ pointer: '/email', message: 'is already taken' }]);
        assert.match(taken.detail, /email/);
      }
    });

    it('checks the record as a merge would leave it, and writes nothing when it fails', async () => {
      const user = await create(ctx.app, 'user', { name: 'Merge Me', email: 'merge@example.com' });
      await create(ctx.app, 'user', { name: 'Taken', email: 'taken@example.com' });
      const change = (payload: object, method = 'PUT', headers: Record<string, string> = {}) =>
        ctx.app.inject({ method, url: `/user/${user.id}/`, headers: { ...JSON_HEADERS, ...headers }, payload });
      assert.deepEqual(pointers(await change({ name: null })), ['/name'], 'removing a required field');
      assert.deepEqual(pointers(await change({ email: 'nope' }, 'PATCH')), ['/email']);
      assert.deepEqual(
        pointers(await change({ email: 'nope' }, 'POST', { 'HTTP-X-HTTP-METHOD': 'PUT' })),
        ['/email'],
        'tunnelled',
      );
      problem(await change({ email: 'TAKEN@example.com' }), 409, 'unique-conflict');
      const after = body(await ctx.app.inject({ url: `/user/${user.id}/` }));
      assert.deepEqual(after, user, 'nothing written, not even the version');
      assert.deepEqual(pointers(await change({ nickname: 'M' })), ['/nickname'], 'a field the closed schema lacks');
      const fine = await change({ name: 'Merged', role: 'customer' });
      assert.equal(fine.statusCode, 200);
      assert.equal(body(fine).name, 'Merged');
    });

    it('releases an Idempotency-Key whose create was refused, so that a retry runs again', async () => {
      const blocker = await create(ctx.app, 'user', { name: 'Blocker', email: 'retry@example.com' });
      const payload = { name: 'Retry', email: 'retry@example.com' };
      problem(await post('user', payload, { 'idempotency-key': 'retry-1' }), 409, 'unique-conflict');
      await ctx.app.inject({ method: 'DELETE', url: `/user/${blocker.id}/` });
      const retried = await post('user', payload, { 'idempotency-key': 'retry-1' });
      assert.equal(retried.statusCode, 201);
      assert.equal(retried.headers['idempotent-replayed'], undefined);
    });

    itKeptTheDocument(ctx);
  });

  describe(`a unique field inside an object (${kind.name})`, () => {
    const schemas = mkdtempSync(join(tmpdir(), 'restock-schemas-'));
    writeFileSync(join(schemas, 'products.schema.json'), '{"type": "object", "x-unique": ["meta.code"]}');
    const ctx = useApp(kind, { schemas }, { contract: true });

    it('answers 409 naming the field by its pointer', async () => {
      await create(ctx.app, 'product', { name: 'a', meta: { code: 'M-1' } });
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/product/',
        headers: JSON_HEADERS,
        payload: { name: 'b', meta: { code: 'M-1' } },
      });
      const taken = problem(response, 409, 'unique-conflict');
      assert.deepEqual(taken.errors, [{ pointer: '/meta/code', message: 'is already taken' }]);
      assert.match(taken.detail, /meta\.code/);
      await create(ctx.app, 'product', { name: 'c', meta: { code: 'M-2' } });
      await create(ctx.app, 'product', { name: 'd', code: 'M-1' });
    });

    itKeptTheDocument(ctx);
  });

  describe(`a unique index the operator made by hand (${kind.name})`, () => {
    const ctx = useApp(kind, {}, { contract: true });

    it('answers 409 without naming a field it cannot trace, never 500', async () => {
      // An index restock did not make and whose expression it does not read.
      await runSql(
        ctx.db.url,
        kind.name === 'sqlite'
          ? `CREATE UNIQUE INDEX operator_sku ON products (json_extract(data, '$.sku'))`
          : `CREATE UNIQUE INDEX operator_sku ON products ((data ->> 'sku'))`,
      );
      await create(ctx.app, 'product', { sku: 'S-1' });
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/product/',
        headers: JSON_HEADERS,
        payload: { sku: 'S-1' },
      });
      const taken = problem(response, 409, 'unique-conflict');
      assert.equal(taken.errors, undefined, 'no pointer to a field it cannot name');
      assert.equal(taken.detail, 'Another record already has a value that must be unique.');
    });

    itKeptTheDocument(ctx);
  });

  describe(`turning a schema on over existing data (${kind.name})`, () => {
    it('never touches records; refuses to start over duplicates, naming them; check lists every violation', async () => {
      const db = await kind.create();
      try {
        const open = await buildApp({
          config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url }),
          logStream: false,
        });
        const made: { id: number }[] = [];
        for (const fields of [
          { name: 'Fine', email: 'fine@example.com' },
          { email: 'no-name@example.com' },
          { name: 'Dup 1', email: 'dup@example.com' },
          { name: 'Dup 2', email: 'DUP@example.com' },
          { name: 'Bad', email: 'not-an-email' },
        ]) {
          made.push(await create(open, 'user', fields));
        }
        await open.close();

        await assert.rejects(
          buildApp({
            config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url, schemas: SHOP_SCHEMAS }),
            logStream: false,
          }),
          (error: Error) =>
            error.name === 'StoreSetupError' &&
            error.message.includes('users.email') &&
            error.message.includes(`ids ${made[2]?.id}, ${made[3]?.id}`) &&
            !error.message.includes('\n'),
        );

        const store = await openStore(db.url, catalogOf(['users', 'products', 'orders']));
        try {
          const lines: string[] = [];
          const catalog = loadCatalog({ schemas: SHOP_SCHEMAS, indexes: [] });
          const summary = await checkRecords(store, catalog, (l) => lines.push(l));
          assert.deepEqual(summary, { checked: 5, invalid: 2, badText: 0, duplicated: 1, dangling: 0 });
          assert.deepEqual(lines, [
            `users/${made[1]?.id} /name: is required`,
            `users/${made[4]?.id} /email: must match format "email"`,
            `users.email: 2 records share "dup@example.com" (ids ${made[2]?.id}, ${made[3]?.id})`,
          ]);
          const stored = await store.collection('users').list({ where: [], sort: [], limit: 10 });
          assert.equal(stored.length, 5, 'no record deleted');
          for (const [i, record] of stored.entries()) assert.equal(record.version, 1, `record ${i} not rewritten`);
        } finally {
          await store.close();
        }
      } finally {
        await db.drop();
      }
    });
  });
}

describe('bad schema files', () => {
  const folder = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-schemas-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };
  const refused = (dir: string, pattern: RegExp) =>
    assert.throws(
      () => loadCatalog({ schemas: dir, indexes: [] }),
      (e: Error) => e instanceof ConfigError && pattern.test(e.message) && !e.message.includes('\n'),
    );

  it('refuses each with one line naming the file and why', () => {
    refused(join(tmpdir(), 'restock-no-such-folder'), /cannot read the folder .*restock-no-such-folder/);
    refused(folder({ 'users.schema.json': '{"type": "object",' }), /users\.schema\.json cannot be read as JSON/);
    refused(
      folder({ 'users.json': '{"type": "object", "properties": {"a": {"type": "strin"}}}' }),
      /users\.json is not a valid JSON Schema/,
    );
    refused(
      folder({ 'users.json': '{"type": "object", "minimumLength": 3}' }),
      /users\.json is not a valid JSON Schema.*minimumLength/,
    );
    refused(folder({ 'stock.schema.json': '{}' }), /stock\.schema\.json must name its singular \("x-singular"\)/);
    refused(
      folder({ 'Orders.schema.json': '{}' }),
      /Orders\.schema\.json: the name "Orders" must be a lower-case word/,
    );
    refused(folder({ 'sheep.schema.json': '{"x-singular": "sheep"}' }), /singular "sheep" must differ/);
    refused(
      folder({ 'metrics.schema.json': '{"x-singular": "metric"}' }),
      /metrics\.schema\.json: "metrics" \(the plural of metrics\) is a path restock serves itself/,
    );
    refused(
      folder({ 'boxes.schema.json': '{"x-singular": "docs"}' }),
      /boxes\.schema\.json: "docs" \(the singular of boxes\) is a path restock serves itself/,
    );
    refused(
      folder({ 'users.json': '{}', 'accounts.json': '{"x-singular": "users"}' }),
      /"users" is both the singular of accounts and the plural of users/,
    );
    refused(folder({ 'users.json': '{"x-index": ["a b"]}' }), /users\.json is not a valid JSON Schema/);
    refused(folder({}), /holds no <plural>\.schema\.json file/);
    refused(folder({ 'users.json': '{"type": "array"}' }), /users\.json must describe an object/);
    refused(folder({ 'users.json': '[]' }), /users\.json is not a JSON Schema object/);
    refused(folder({ 'users.json': '{"x-unique": ["a b"]}' }), /users\.json is not a valid JSON Schema/);
    refused(folder({ 'users.json': '{}', 'users.schema.json': '{}' }), /second schema for users/);
    refused(
      folder({ 'users.json': '{"type": "object", "properties": {"a": {"type": "string", "pattern": "^(?=x)"}}}' }),
      /users\.json is not a valid JSON Schema: the pattern "\^\(\?=x\)" needs more than RE2/,
    );
    const unreadable = folder({});
    mkdirSync(join(unreadable, 'users.json'));
    refused(unreadable, /users\.json cannot be read/);
  });

  it('refuses the slips a schema compiler would take without a word, in one line naming the file', () => {
    const closed = (rules: Record<string, string>, extra = '') =>
      `{"type": "object", "additionalProperties": false, "properties": {"title": {"type": "string"}, "userId": {"type": "integer"}}, "x-rules": ${JSON.stringify(rules)}${extra}}`;
    refused(
      folder({ 'notes.schema.json': closed({ list: 'tilte == "a"' }) }),
      /notes\.schema\.json: x-rules\.list: tilte is not a field of this schema, which takes no others \(additionalProperties: false\)$/,
    );
    refused(
      folder({ 'notes.schema.json': closed({ create: 'body.owner == auth.id' }) }),
      /x-rules\.create: owner is not a field of this schema/,
    );
    refused(
      folder({ 'notes.schema.json': closed({ list: 'userId == auth.id' }, ', "x-owner": "userID"') }),
      /notes\.schema\.json: x-owner: "userID" is not a field of the schema's properties$/,
    );
    const accounts =
      '{"type": "object", "properties": {"email": {"type": "string"}, "password": {"type": "string"}, "role": {"type": "string"}}, "x-unique": ["email"], "x-auth": {"claims": ["role"]}}';
    const byClaim = (rule: string) =>
      loadCatalog({
        schemas: folder({ 'users.schema.json': accounts, 'notes.schema.json': closed({ update: rule }) }),
        indexes: [],
        authJwksUrl: '',
        authPublicKeyFile: '',
      });
    assert.throws(
      () => byClaim("auth.rol == 'staff'"),
      (e: Error) =>
        e instanceof ConfigError &&
        /notes\.schema\.json: x-rules\.update: auth\.rol is no claim of a token \(auth\.id, auth\.collection, auth\.verified, auth\.role\); did you mean auth\.role\?$/.test(
          e.message,
        ),
    );
    for (const known of ["auth.role == 'staff'", 'userId == auth.id', "auth.collection == 'users'"]) {
      assert.doesNotThrow(() => byClaim(known), known);
    }
    // Tokens of another issuer carry claims no schema names.
    assert.doesNotThrow(() =>
      loadCatalog({
        schemas: folder({ 'notes.schema.json': closed({ update: "auth.tenant == 'a'" }) }),
        indexes: [],
        authJwksUrl: 'https://issuer.example/jwks.json',
        authPublicKeyFile: '',
      }),
    );
    refused(
      folder({ 'users.json': '{}', 'notes.schema.jsn': '{}' }),
      /notes\.schema\.jsn is not read: only \.json files are; name it notes\.schema\.json$/,
    );
    refused(folder({ 'users.json': '{}', 'notes.JSON': '{}' }), /notes\.JSON is not read/);
    refused(
      folder({ 'users.json': '{}', 'notes.schema': '{}' }),
      /notes\.schema is not read: name it notes\.schema\.json$/,
    );
    assert.doesNotThrow(() => loadCatalog({ schemas: folder({ 'users.json': '{}', 'README.md': '#' }), indexes: [] }));
    refused(
      folder({
        'users.schema.json': '{\n  "type": "object",\n  "properties": {\n    "a": {"type": "string"},\n  }\n}',
      }),
      /users\.schema\.json cannot be read as JSON \(.*at line 5, column 3\)$/,
    );
  });

  it('match patterns in time linear in the value: no value a client sends can hold the loop', () => {
    const dir = folder({
      'users.json': '{"type": "object", "properties": {"name": {"type": "string", "pattern": "^(a+)+$"}}}',
    });
    const users = loadCatalog({ schemas: dir, indexes: [] }).get('users').schema;
    // JavaScript's own engine takes hours on this (8 s at 28 letters, doubling with each).
    assert.deepEqual(users?.check({ name: `${'a'.repeat(60)}!` }), [
      { pointer: '/name', message: 'must match pattern "^(a+)+$"' },
    ]);
    assert.deepEqual(users?.check({ name: 'a'.repeat(60) }), []);
  });

  it('stop the server from starting, with that line', async () => {
    const dir = folder({ 'products.schema.json': '{"type": "object", "properties": {"price": {"minimum": "zero"}}}' });
    const { code, stderr } = await runCommand([], { SCHEMAS: dir, DATABASE_URL: 'sqlite::memory:' });
    assert.equal(code, 1);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.match(stderr, /products\.schema\.json is not a valid JSON Schema/);
    const claims = folder({
      'users.schema.json':
        '{"type": "object", "properties": {"email": {"type": "string"}, "password": {"type": "string"}, "role": {"type": "string"}}, "x-unique": ["email"], "x-auth": {"claims": ["role"]}, "x-rules": {"list": "auth.rol == 1"}}',
    });
    const served = await runCommand([], { SCHEMAS: claims, DATABASE_URL: 'sqlite::memory:' });
    assert.equal(served.code, 1);
    assert.match(
      served.stderr,
      /^restock: SCHEMAS: \S+users\.schema\.json: x-rules\.list: auth\.rol is no claim of a token [^\n]*; did you mean auth\.role\?\n$/,
    );
  });
});
