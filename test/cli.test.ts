/**
 * The command line: import and export against a real database (once per store), run in
 * process with in-memory streams, and a few runs of the real process (stdin, a terminal,
 * migrate, help, version, npx).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runCommand } from '../src/commands/commands.js';
import { progressFormat } from '../src/commands/progress.js';
import { ConfigError } from '../src/config/index.js';
import { VERSION } from '../src/core/version.js';
import { openStore } from '../src/store/open-store.js';
import type { Store, StoredRecord } from '../src/store/store.js';
import { catalogOf } from './helpers/catalog.js';
import { cli } from './helpers/cli.js';
import { runCommand as runProcess, SERVER_ENTRY } from './helpers/server.js';
import {
  POSTGRES_AVAILABLE,
  postgresKind,
  postgresUrl,
  STORE_KINDS,
  sqliteKind,
  type TestDatabase,
} from './helpers/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const COLLECTIONS = ['users', 'products'];

/** Every record of a collection, with its fields parsed (stores write JSON text differently). */
async function listed(store: Store, name: string) {
  const records = await store.collection(name).list({ where: [], sort: [], limit: 100_000 });
  return records.map(({ position: _, data, ...rest }) => ({ ...rest, data: JSON.parse(data) as unknown }));
}

const ndjson = (records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

for (const kind of STORE_KINDS) {
  describe(`restock import and export (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'restock-cli-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** A fresh database for one test; its store is left open for checks. */
    const fresh = async () => {
      await store?.close();
      await db?.drop();
      db = await kind.create();
      store = await openStore(db.url, catalogOf(COLLECTIONS));
      return db.url;
    };
    after(async () => {
      await store?.close();
      await db?.drop();
    });
    const all = async (name: string): Promise<StoredRecord[]> =>
      store.collection(name).list({ where: [], sort: [], limit: 100_000 });

    it('imports NDJSON with new ids and prints one summary line', async () => {
      const url = await fresh();
      const result = await cli(
        url,
        ['import', '-', '-c', 'users'],
        ndjson([{ name: 'Ada' }, { name: 'Grace', tags: [1] }]),
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^imported 2 users \(2 with new ids, 0 with their own\) in \d+\.\d s\n$/);
      assert.equal(result.stderr, '', 'no progress bar when standard error is not a terminal');
      const records = await all('users');
      assert.deepEqual(
        records.map((r) => JSON.parse(r.data)),
        [{ name: 'Ada' }, { name: 'Grace', tags: [1] }],
      );
    });

    it('exports page by page as NDJSON or a JSON array, and imports the export back identically, ids kept', async () => {
      const url = await fresh();
      // More than two of export's pages (1000 records each).
      const data = Array.from({ length: 2345 }, (_, i) =>
        JSON.stringify({ i, name: `product ${i}`, nested: { x: i } }),
      );
      await store.collection('products').createMany(data);
      await store.collection('products').remove(7);
      const asNdjson = await cli(url, ['export', '-c', 'products']);
      assert.equal(asNdjson.code, 0, asNdjson.stderr);
      assert.equal(asNdjson.stderr, 'exported 2344 products\n');
      const lines = asNdjson.stdout.trimEnd().split('\n');
      assert.equal(lines.length, 2344);
      const first = JSON.parse(lines[0] ?? '');
      const keys = Object.keys(first);
      assert.deepEqual([keys[0], ...keys.slice(-2)], ['id', 'createdAt', 'updatedAt'], 'as the API writes records');
      assert.deepEqual(keys.slice(1, -2).sort(), ['i', 'name', 'nested']);
      assert.ok(lines.every((line, n) => n === 0 || JSON.parse(line).id > JSON.parse(lines[n - 1] ?? '').id));

      const file = join(dir, 'products.json');
      const asArray = await cli(url, ['export', '-c', 'products', '-o', file]);
      assert.equal(asArray.code, 0, asArray.stderr);
      assert.equal(asArray.stdout, '');
      assert.ok(!existsSync(`${file}.partial`));
      const array = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
      assert.deepEqual(
        array,
        lines.map((line) => JSON.parse(line)),
        'the JSON array holds the same records',
      );

      const source = await all('products');
      const target = await fresh();
      const imported = await cli(target, ['import', file, '--collection', 'products', '--batch-size', '500']);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /imported 2344 products \(0 with new ids, 2344 with their own\)/);
      const copied = await all('products');
      assert.deepEqual(
        copied.map(({ version: _v, ...rest }) => rest),
        source.map(({ version: _v, ...rest }) => rest),
      );
      assert.equal(await store.collection('products').get(7), undefined, 'a deleted id stays free');
      assert.ok((await store.collection('products').create('{}')).id > 2345, 'new ids come after the imported ones');
      // A restored record's ETag cannot match one a client got for an older state (version 1).
      assert.ok(copied.every((r) => r.version >= 1_000_000_000 && r.version < 2_000_000_000));
      const again = await cli(target, ['export', '-c', 'products', '--format', 'json']);
      assert.equal(JSON.parse(again.stdout).length, 2345);
    });

    it('exports an empty collection as [] or nothing', async () => {
      const url = await fresh();
      assert.equal((await cli(url, ['export', '-c', 'users', '--format', 'json'])).stdout, '[]\n');
      assert.equal((await cli(url, ['export', '-c', 'users'])).stdout, '');
    });

    it('gives new ids with --new-ids, ignoring system fields as the API does', async () => {
      const url = await fresh();
      await store.collection('users').createMany(['{"first":true}']);
      const input = ndjson([{ id: 1, createdAt: '2000-01-01T00:00:00.000Z', name: 'copy' }]);
      const result = await cli(url, ['import', '-', '-c', 'users', '--new-ids'], input);
      assert.equal(result.code, 0, result.stderr);
      const records = await all('users');
      assert.deepEqual(
        records.map((r) => [r.id, JSON.parse(r.data)]),
        [
          [1, { first: true }],
          [2, { name: 'copy' }],
        ],
      );
      assert.notEqual(records[1]?.createdAt, '2000-01-01T00:00:00.000Z');
    });

    it('reports a bad line by its number, and undoes the batches written before it', async () => {
      const url = await fresh();
      const input = [
        JSON.stringify({ n: 1 }),
        JSON.stringify({ n: 2 }),
        JSON.stringify({ n: 3 }),
        '{"n": 4,}',
        JSON.stringify({ n: 5 }),
      ].join('\n');
      const result = await cli(url, ['import', '-', '-c', 'users', '--batch-size', '2'], input);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^restock: line 4: not valid JSON/);
      assert.match(result.stderr, /nothing was imported: the 2 users written before it were deleted again/);
      assert.deepEqual(await all('users'), [], 'the first batch, committed, is deleted again');
      const again = await cli(url, ['import', '-', '-c', 'users', '--batch-size', '2'], input.replace(',}', '}'));
      assert.equal(again.code, 0, 'a fixed file runs again as if the first run never was');
      assert.deepEqual(
        (await all('users')).map((r) => JSON.parse(r.data).n),
        [1, 2, 3, 4, 5],
      );
    });

    it('--upsert looks up full batches of 1,000 keys and more', async () => {
      const url = await fresh();
      const lines = ndjson(Array.from({ length: 2500 }, (_, i) => ({ id: i + 1, name: `u${i}` })));
      assert.equal((await cli(url, ['import', '-', '-c', 'users'], lines)).code, 0);
      const result = await cli(url, ['import', '-', '-c', 'users', '--upsert', 'id'], lines);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^imported 2500 users \(0 created, 2500 replaced\)/);
    });

    it('--upsert replaces what matches on id or a unique field and creates the rest, the same on every run', async () => {
      const url = await fresh();
      const schemas = { SCHEMAS: 'schemas/shop' };
      const first = ndjson([
        { id: 1, name: 'Ada', tags: ['a'] },
        { id: 2, name: 'Grace', note: 'dropped by the replace' },
      ]);
      assert.equal((await cli(url, ['import', '-', '-c', 'users'], first)).code, 0);
      const byId = ndjson([
        { id: 2, name: 'Grace', team: null },
        { id: 3, name: 'Lin' },
      ]);
      for (const run of [1, 2]) {
        const result = await cli(url, ['import', '-', '-c', 'users', '--upsert', 'id'], byId);
        assert.equal(result.code, 0, result.stderr);
        const counts = run === 1 ? '1 created, 1 replaced' : '0 created, 2 replaced';
        assert.match(result.stdout, new RegExp(`^imported 2 users \\(${counts}\\)`));
      }
      assert.deepEqual(
        (await all('users')).map((r) => [r.id, JSON.parse(r.data)]),
        [
          [1, { name: 'Ada', tags: ['a'] }],
          [2, { name: 'Grace', team: null }],
          [3, { name: 'Lin' }],
        ],
        'a replaced record holds exactly the line: no merge, and a null stays a null',
      );

      const seeded = ndjson([{ name: 'kettle', sku: 'K', price: 20 }]);
      assert.equal((await cli(url, ['import', '-', '-c', 'products'], seeded, schemas)).code, 0);
      const bySku = ndjson([
        { name: 'kettle, new', sku: 'K' },
        { name: 'lid', sku: 'L' },
      ]);
      const result = await cli(url, ['import', '-', '-c', 'products', '--upsert', 'sku'], bySku, schemas);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(
        (await all('products')).map((r) => JSON.parse(r.data)),
        [
          { name: 'kettle, new', sku: 'K' },
          { name: 'lid', sku: 'L' },
        ],
      );

      await assert.rejects(
        cli(url, ['import', '-', '-c', 'products', '--upsert', 'name'], bySku, schemas),
        (error: Error) =>
          error instanceof ConfigError &&
          /--upsert takes id or a unique field.*id, sku; got "name"/.test(error.message),
      );
    });

    it('--dry-run checks every line, in the file and against the database, and writes nothing', async () => {
      const url = await fresh();
      const schemas = { SCHEMAS: 'schemas/shop' };
      const seeded = await cli(
        url,
        ['import', '-', '-c', 'users'],
        ndjson([{ id: 7, name: 'Ada', email: 'ada@example.com' }]),
        schemas,
      );
      assert.equal(seeded.code, 0, seeded.stderr);
      const input = ndjson([
        { name: 'Grace', email: 'grace@example.com' },
        { name: 'Ada again', email: 'ada@example.com' },
        { id: 7, name: 'Seven', email: 'seven@example.com' },
        { name: 'No address' },
        { id: 9, name: 'Nine', email: 'GRACE@example.com' },
        { id: 9, name: 'Nine again', email: 'nine@example.com' },
      ]);
      const checked = await cli(url, ['import', '-', '-c', 'users', '--dry-run'], `${input}{"broken": \n`, schemas);
      assert.equal(checked.code, 1);
      const lines = checked.stderr.trim().split('\n');
      assert.deepEqual(lines.slice(0, -1), [
        'restock: line 2: email "ada@example.com" is already taken by record 7',
        'restock: line 3: id 7 is already taken (use --new-ids to renumber)',
        'restock: line 4: breaks the schema: /email is required',
        'restock: line 5: email "GRACE@example.com" is also on line 1',
        'restock: line 6: id 9 is also on line 5',
        `restock: line 7: not valid JSON: ${lines[5]?.split('not valid JSON: ')[1]}`,
      ]);
      assert.match(
        lines.at(-1) ?? '',
        /^checked 5 users \(2 with new ids, 3 with their own\): 6 cannot be imported; nothing was written$/,
      );
      assert.equal((await all('users')).length, 1, 'nothing written');

      const clean = await cli(
        url,
        ['import', '-', '-c', 'users', '--dry-run'],
        ndjson([{ name: 'Lin', email: 'lin@example.com' }]),
        schemas,
      );
      assert.equal(clean.code, 0, clean.stderr);
      assert.match(
        clean.stdout,
        /^checked 1 users \(1 with new ids, 0 with their own\): every one can be imported; nothing was written\n$/,
      );
      assert.equal((await all('users')).length, 1, 'still nothing written');
    });

    it('--dry-run lists the references that name no record, which the import keeps', async () => {
      const url = await fresh();
      const schemas = { SCHEMAS: 'schemas/shop' };
      const seed = async (collection: string, records: object[]) =>
        assert.equal((await cli(url, ['import', '-', '-c', collection], ndjson(records), schemas)).code, 0);
      await seed('users', [{ id: 7, name: 'Ada', email: 'ada@example.com' }]);
      await seed('products', [{ id: 3, name: 'kettle' }]);
      const orders = ndjson([
        { userId: 7, items: [{ productId: 3, quantity: 1 }], status: 'placed' },
        {
          userId: 99,
          items: [
            { productId: 3, quantity: 1 },
            { productId: 42, quantity: 2 },
          ],
          status: 'placed',
        },
      ]);
      const checked = await cli(url, ['import', '-', '-c', 'orders', '--dry-run'], orders, schemas);
      assert.equal(checked.code, 0, 'such references do not stop an import');
      assert.deepEqual(checked.stderr.trim().split('\n'), [
        'restock: line 2: /userId names users 99, which does not exist',
        'restock: line 2: /items/1/productId names products 42, which does not exist',
      ]);
      assert.match(
        checked.stdout,
        /^checked 2 orders \(2 with new ids, 0 with their own\): every one can be imported; 2 references name records that do not exist, kept as they are; nothing was written\n$/,
      );
      const exported = await cli(url, ['export', '-c', 'orders'], '', schemas);
      assert.equal(exported.stdout, '', 'nothing written');
    });

    it('refuses records the API would refuse, naming the line', async () => {
      const url = await fresh();
      const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
      const cases: [string, RegExp, Record<string, string>?][] = [
        [`{"ok":1}\n${deep}`, /line 2: \/a\/a.*nesting deeper than 32/],
        ['{"ok":1}\n[1,2]', /line 2: a record must be a JSON object/],
        [`{"${'k'.repeat(201)}":1}`, /line 1: .*field name longer than 200/],
        [
          '{"big":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}',
          /line 1: the record is 58 bytes as compact JSON, more than MAX_RECORD_BYTES \(40\)/,
          { BODY_LIMIT: '40' },
        ],
        ['{"id":0,"a":1}', /line 1: id must be an integer from 1 to 9007199254740991/],
        ['{"id":"7"}', /line 1: id must be an integer from 1 to 9007199254740991/],
        ['{"id":7,"createdAt":"yesterday"}', /line 1: createdAt must be an RFC 3339 UTC time/],
        ['[{"a":1},\n{"b":2}', /line 2: the array is not closed/],
      ];
      for (const [input, message, env] of cases) {
        const result = await cli(url, ['import', '-', '-c', 'products'], input, env);
        assert.equal(result.code, 1, input);
        assert.match(result.stderr, message);
      }
      assert.deepEqual(await all('products'), [], 'every failing batch was refused whole');
    });

    it('names the line of an id that is taken or repeated, and keeps the batch out', async () => {
      const url = await fresh();
      await store.collection('users').restore([
        {
          id: 3,
          data: '{}',
          version: 1,
          createdAt: '2024-01-01T00:00:00.000Z',
          updatedAt: '2024-01-01T00:00:00.000Z',
        },
      ]);
      const taken = await cli(url, ['import', '-', '-c', 'users'], ndjson([{ id: 1 }, { id: 2 }, { id: 3 }]));
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /line 3: id 3 is already taken/);
      const twice = await cli(url, ['import', '-', '-c', 'users'], ndjson([{ id: 10 }, { id: 10 }]));
      assert.match(twice.stderr, /line 2: id 10 appears twice/);
      assert.deepEqual(
        (await all('users')).map((r) => r.id),
        [3],
      );
    });

    it("checks records against the collection's schema, and keeps unique fields unique", async () => {
      const url = await fresh();
      const schemas = { SCHEMAS: 'schemas/shop' };
      const input = ndjson([
        { name: 'Ada', email: 'ada@example.com' },
        { name: 'Grace', email: 'not an address' },
      ]);
      const invalid = await cli(url, ['import', '-', '-c', 'users'], input, schemas);
      assert.equal(invalid.code, 1);
      assert.match(invalid.stderr, /line 2: breaks the schema: \/email must match format "email"/);
      const records = ndjson([
        { name: 'Ada', email: 'ada@example.com' },
        { name: 'Ada too', email: 'ADA@example.com' },
      ]);
      const taken = await cli(url, ['import', '-', '-c', 'users'], records, schemas);
      assert.equal(taken.code, 1);
      assert.match(
        taken.stderr,
        /lines 1–2: a record here has a value of email that another record has \(email must be unique\)/,
      );
      // One record a batch: the second batch fails, and the first is undone.
      const later = await cli(url, ['import', '-', '-c', 'users', '--batch-size', '1'], records, schemas);
      assert.equal(later.code, 1);
      assert.match(later.stderr, /^restock: line 2: a record here has a value of email/);
      assert.match(later.stderr, /the 1 users written before it were deleted again/);
      assert.deepEqual(await all('users'), [], 'nothing was written');
    });

    it('check lists the records that break their schema and the values they share', async () => {
      const url = await fresh();
      // Written before the schema was turned on, as an operator would find them.
      await store
        .collection('users')
        .createMany([
          '{"name":"Ada","email":"ada@example.com"}',
          '{"name":"Ada too","email":"ada@example.com"}',
          '{"email":"no name"}',
        ]);
      const result = await cli(url, ['check'], '', { SCHEMAS: 'schemas/shop' });
      assert.equal(result.code, 1);
      assert.match(result.stdout, /^users\/3 \/name: is required$/m);
      assert.match(result.stdout, /^users\/3 \/email: must match format "email"$/m);
      assert.match(result.stdout, /^users\.email: 2 records share "ada@example\.com" \(ids 1, 2\)$/m);
      assert.equal(
        result.stderr,
        'checked 3 records: 1 break their schema, 0 hold a lone surrogate, 1 values of unique fields are shared, ' +
          '0 references name no record\n',
      );
      await store.collection('users').remove(2);
      await store.collection('users').remove(3);
      const clean = await cli(url, ['check'], '', { SCHEMAS: 'schemas/shop' });
      assert.equal(clean.code, 0, clean.stdout);
      assert.equal(clean.stdout, '');
    });

    it('writes records with and without ids in separate batches, in order', async () => {
      const url = await fresh();
      const input = ndjson([{ id: 100, a: 1 }, { id: 101, a: 2 }, { b: 1 }, { id: 50, c: 1 }]);
      const result = await cli(url, ['import', '-', '-c', 'users'], input);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /imported 4 users \(1 with new ids, 3 with their own\)/);
      assert.deepEqual(
        (await all('users')).map((r) => [r.id, JSON.parse(r.data)]),
        [
          [50, { c: 1 }],
          [100, { a: 1 }],
          [101, { a: 2 }],
          [102, { b: 1 }],
        ],
      );
    });
  });
}

describe('restock arguments', () => {
  const url = 'sqlite::memory:';

  it('prints the version and the commands', async () => {
    assert.equal((await cli(url, ['--version'])).stdout, `restock ${VERSION}\n`);
    const help = (await cli(url, ['--help'])).stdout;
    for (const word of ['serve', 'migrate', 'check', 'import FILE', 'export', '--version', 'DATABASE_URL']) {
      assert.ok(help.includes(word), word);
    }
    assert.ok(help.split('\n').length < 40, `short: ${help.split('\n').length} lines`);
    const importHelp = (await cli(url, ['import', '--help'])).stdout;
    assert.match(importHelp, /--batch-size N/);
    assert.match(importHelp, /--new-ids/);
    assert.match((await cli(url, ['export', '-h'])).stdout, /-o, --output FILE/);
  });

  it('leaves serving to the server: no command, serve, or a flag first', async () => {
    assert.equal(await runCommand([]), undefined);
    assert.equal(await runCommand(['serve', '--port', '1']), undefined);
    assert.equal(await runCommand(['--port', '1']), undefined);
  });

  it('refuses wrong arguments in one line naming them', async () => {
    const refused = async (argv: string[], message: RegExp) =>
      assert.rejects(cli(url, argv), (e: Error) => e instanceof ConfigError && message.test(e.message));
    await refused(['frob'], /^unknown command "frob"; restock --help lists the commands$/);
    await refused(['serv'], /^unknown command "serv"; did you mean serve\?$/);
    await refused(['migrat'], /did you mean migrate\?/);
    await refused(['import', '-'], /--collection must be one of users, products/);
    await refused(['import', '-c', 'users'], /one FILE/);
    await refused(['import', 'a', 'b', '-c', 'users'], /one FILE/);
    await refused(['import', '-', '-c', 'users', '--batch-size', '0'], /--batch-size/);
    await refused(['import', '/no/such/file', '-c', 'users'], /cannot read \/no\/such\/file/);
    await refused(['export', '-c', 'orders'], /got "orders"/);
    await refused(['export', '-c', 'users', '--format', 'xml'], /--format must be json or ndjson/);
    await assert.rejects(cli(url, ['export', '-c', 'users', 'extra']), /ERR_PARSE_ARGS|Unexpected argument/);
    await refused(
      ['import', '-', '-c', 'users', '--batch-szie', '5'],
      /^unknown option --batch-szie; did you mean --batch-size\?$/,
    );
    await refused(['export', '-c', 'users', '--databse-url', url], /did you mean --database-url\?/);
  });

  it('refuses an unknown flag to serve in one line, suggesting the nearest', async () => {
    const { code, stdout, stderr } = await runProcess(['serve', '--prot', '8080'], {});
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(stderr, 'restock: unknown option --prot; did you mean --port?\n');
  });

  it('stops in one line with the fix for a database or a role PostgreSQL does not have', {
    skip: !POSTGRES_AVAILABLE && 'PostgreSQL does not answer',
  }, async () => {
    const { hostname, port } = new URL(postgresUrl('x'));
    const server = `${hostname}:${port || '5432'}`;
    const missing = postgresUrl(`restock_missing_${process.pid}`);
    const migrated = await runProcess(['migrate'], { DATABASE_URL: missing });
    assert.equal(migrated.code, 1);
    assert.match(
      migrated.stderr,
      new RegExp(
        `^restock: PostgreSQL at ${server} has no database "restock_missing_${process.pid}" \\(the database URL names it\\); create it with: createdb -h ${hostname} -p ${port || '5432'} -U \\S+ restock_missing_${process.pid}\n$`,
      ),
    );
    const stranger = new URL(postgresUrl('postgres'));
    stranger.username = 'restock_no_such_role';
    const served = await runProcess(['serve', '--port', '0'], { DATABASE_URL: stranger.href });
    assert.equal(served.code, 1);
    assert.match(
      served.stderr,
      /^restock: PostgreSQL at \S+ has no role "restock_no_such_role" \(the user of the database URL\); name another user in the URL, or create it with: createuser [^\n]*\n$/,
    );
  });

  it('stops in one line when another process holds the port', async () => {
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
    const { port } = holder.address() as AddressInfo;
    try {
      const served = await runProcess(['serve'], { PORT: String(port), DATABASE_URL: 'sqlite::memory:' });
      assert.deepEqual(served, {
        code: 1,
        stdout: '',
        stderr: `restock: cannot listen on 127.0.0.1:${port}: another process uses the port; stop it, or choose another port with PORT or --port\n`,
      });
    } finally {
      holder.close();
    }
  });
});

describe('the restock process', () => {
  it('imports from standard input, and migrates', async () => {
    const db = await sqliteKind.create();
    try {
      const migrated = await runProcess(['migrate'], { DATABASE_URL: db.url });
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.match(
        migrated.stdout,
        new RegExp(
          `^created the sqlite database at ${db.url}: \\d+ migrations applied, 2 collections \\(users, products\\)\n$`,
        ),
      );
      const imported = await runProcess(
        ['import', '-', '-c', 'products'],
        { DATABASE_URL: db.url },
        '{"name":"Teapot"}\n',
      );
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /^imported 1 products/);
      const bad = await runProcess(['import', '-', '-c', 'products'], { DATABASE_URL: db.url }, '{"a":1}\n{"b"}\n');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /line 2: not valid JSON/);
      const exported = await runProcess(['export', '-c', 'products'], { DATABASE_URL: db.url });
      assert.equal(exported.stdout.trimEnd().split('\n').length, 1);
    } finally {
      await db.drop();
    }
  });

  it('draws a progress bar on a terminal', async () => {
    const db = await sqliteKind.create();
    const file = join(tmpdir(), `restock-progress-${process.pid}.ndjson`);
    try {
      writeFileSync(file, ndjson(Array.from({ length: 3000 }, (_, i) => ({ i }))));
      // util-linux `script` runs the command on a pseudo-terminal, as a person's shell would.
      const command = `${process.execPath} ${SERVER_ENTRY} import ${file} -c users --batch-size 100`;
      const { stdout } = await promisify(execFile)('script', ['-qec', command, '/dev/null'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: db.url },
      });
      assert.match(stdout, /importing users \[[^\]]*\] *\d+% \| \d+ records/);
      assert.match(stdout, /imported 3000 users/);
    } finally {
      rmSync(file, { force: true });
      await db.drop();
    }
  });

  it('draws the bar of a dry run with the time spent, and the time left only once it is known', async () => {
    const db = await sqliteKind.create();
    const file = join(tmpdir(), `restock-dry-progress-${process.pid}.ndjson`);
    try {
      writeFileSync(file, ndjson(Array.from({ length: 3000 }, (_, i) => ({ i }))));
      const command = `${process.execPath} ${SERVER_ENTRY} import ${file} -c users --dry-run`;
      const { stdout } = await promisify(execFile)('script', ['-qec', command, '/dev/null'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: db.url },
      });
      assert.match(stdout, /checking users \[[^\]]*\] *\d+% \| \d+ records \| \d+s/);
      assert.doesNotMatch(stdout, /ETA (?!\d)|NF|NULL|NaN/, 'no estimate but a time');
      assert.match(stdout, /checked 3000 users/);
    } finally {
      rmSync(file, { force: true });
      await db.drop();
    }
  });

  it("shows no estimate while cli-progress has none, rather than pieces of 'INF' or 'NULL'", () => {
    const options = {
      barsize: 4,
      barCompleteString: '====',
      barIncompleteString: '----',
      barGlue: '',
      autopaddingChar: '',
    };
    const params = { progress: 0.5, startTime: Date.now(), stopTime: null, total: 10, value: 5, maxWidth: 120 };
    const line = (eta: unknown, sized = true) =>
      progressFormat('checking users', sized)(options, { ...params, eta: eta as number }, { records: 7 });
    assert.equal(line('INF'), 'checking users [==--] 50% | 7 records | 0s');
    assert.equal(line('NULL'), 'checking users [==--] 50% | 7 records | 0s');
    assert.equal(line(65), 'checking users [==--] 50% | 7 records | 0s | ETA 1m5s');
    assert.equal(line(65, false), 'checking users | 7 records | 0s');
  });

  it('moves a SQLite database to PostgreSQL with export and import, as docs/operations.md shows', {
    skip: !POSTGRES_AVAILABLE && 'PostgreSQL does not answer',
  }, async () => {
    const [from, to] = [await sqliteKind.create(), await postgresKind.create()];
    const dir = mkdtempSync(join(tmpdir(), 'restock-move-'));
    try {
      const source = await openStore(from.url, catalogOf(COLLECTIONS));
      const users = await source
        .collection('users')
        .createMany(['{"name":"Ada"}', '{"name":"Gone"}', '{"name":"Grace"}']);
      await source.collection('users').remove(users[1]?.id ?? 0);
      await source.collection('products').createMany(['{"name":"Teapot","price":19.5,"tags":["tea"]}']);
      const before = { users: await listed(source, 'users'), products: await listed(source, 'products') };
      await source.close();

      for (const name of COLLECTIONS) {
        const file = join(dir, `${name}.ndjson`);
        const exported = await runProcess(['export', '-c', name, '-o', file], { DATABASE_URL: from.url });
        assert.equal(exported.code, 0, exported.stderr);
        const imported = await runProcess(['import', file, '-c', name], { DATABASE_URL: to.url });
        assert.equal(imported.code, 0, imported.stderr);
      }
      const target = await openStore(to.url, catalogOf(COLLECTIONS));
      try {
        for (const name of COLLECTIONS) {
          const after = await listed(target, name);
          assert.deepEqual(
            after.map(({ version: _, ...rest }) => rest),
            before[name as 'users' | 'products'].map(({ version: _, ...rest }) => rest),
            name,
          );
        }
        const next = await target.collection('users').create('{"name":"New"}');
        assert.ok(next.id > (users[2]?.id ?? 0), 'new ids start above the moved ones');
      } finally {
        await target.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await from.drop();
      await to.drop();
    }
  });

  it('runs with the same Node.js flags from npm start and from npx restock', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    // Flags, not the `--` that ends them (bin/restock.mjs says why it has one).
    const flags = (line: string) => line.split(/\s+/).filter((word) => word.startsWith('--') && word !== '--');
    const fromStart = flags(scripts.start);
    const shebang = readFileSync(join(ROOT, 'bin/restock.mjs'), 'utf8').split('\n', 1)[0] ?? '';
    assert.ok(fromStart.length > 0, scripts.start);
    assert.deepEqual(flags(shebang), fromStart, shebang);
  });

  it('runs as npx restock from the clone', async () => {
    const { stdout } = await promisify(execFile)('npx', ['--no-install', 'restock', '--version'], { cwd: ROOT });
    assert.equal(stdout, `restock ${VERSION}\n`);
  });
});
