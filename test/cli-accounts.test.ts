/**
 * Accounts through the command line, on every store, with the example shop: an export leaves
 * passwords out unless asked for their hashes; an export with hashes imported into a fresh
 * database signs in with the original passwords; plain-text passwords in an import are
 * hashed (never in the record's data, checked in the database itself), with --upsert too;
 * --dry-run writes nothing. Sign-in goes through the real app.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ConfigError, defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { JSON_HEADERS } from './helpers/app.js';
import { cli } from './helpers/cli.js';
import { authorization, withKeys } from './helpers/keys.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/** What the CLI is given: the shop, and passwords hashed cheaply (the cost is tested apart). */
const ENV = { SCHEMAS: 'schemas/shop', PASSWORD_HASH_COST: '10,8,1' };
const PASSWORDS = { ada: 'correct horse battery', bob: 'tr0ub4dor&3 staple' } as const;
const PLAIN = { dee: 'plain text to hash', eve: 'another plain one' } as const;

const ndjson = (records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const lines = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The shop's app on `db`, as a server would run it. */
function shopApp(db: TestDatabase) {
  const config = defaultConfig({
    ...withKeys({ schemas: 'schemas/shop', passwordHashCost: { logN: 10, r: 8, p: 1 } }),
    maxEventLoopDelay: 0,
    databaseUrl: db.url,
  });
  return buildApp({ config, logStream: false });
}

/** The status of signing in as `email` with `password`, through the real app. */
async function signInStatus(db: TestDatabase, email: string, password: string): Promise<number> {
  const app = await shopApp(db);
  try {
    const answer = await app.inject({
      method: 'POST',
      url: '/users/auth/',
      headers: JSON_HEADERS,
      payload: { email, password },
    });
    return answer.statusCode;
  } finally {
    await app.close();
  }
}

/** Rows of `sql` read from the database itself, not through restock. */
async function rawRows(kind: string, db: TestDatabase, sql: string): Promise<Record<string, unknown>[]> {
  if (kind === 'sqlite') {
    const sqlite = new Database(db.url.replace(/^sqlite:/, ''), { readonly: true });
    try {
      return sqlite.prepare(sql).all() as Record<string, unknown>[];
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client(db.url);
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

for (const kind of STORE_KINDS) {
  describe(`restock export and import of accounts (${kind.name})`, () => {
    const dbs: TestDatabase[] = [];
    let dir: string;
    const fresh = async () => {
      const db = await kind.create();
      dbs.push(db);
      return db;
    };
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'restock-cli-accounts-'));
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      for (const db of dbs) await db.drop();
    });
    const data = (db: TestDatabase) =>
      rawRows(
        kind.name,
        db,
        `SELECT ${kind.name === 'postgres' ? 'data::text' : 'data'} AS data FROM users ORDER BY id`,
      );
    const secrets = (db: TestDatabase) =>
      rawRows(
        kind.name,
        db,
        "SELECT record_id, hash FROM account_secrets WHERE collection = 'users' ORDER BY record_id",
      );

    it('exports no password nor hash by default, hashes with --password-hashes, and they sign in once imported', async () => {
      const source = await fresh();
      const app = await shopApp(source);
      try {
        const people = [
          { name: 'Ada', email: 'ada@example.com', password: PASSWORDS.ada },
          { name: 'Cy', email: 'cy@example.com' },
          { name: 'Bob', email: 'bob@example.com', password: PASSWORDS.bob },
        ];
        for (const payload of people) {
          const headers = { ...JSON_HEADERS, ...authorization('write') };
          const made = await app.inject({ method: 'POST', url: '/user/', headers, payload });
          assert.equal(made.statusCode, 201, made.body);
        }
      } finally {
        await app.close();
      }

      const plain = await cli(source.url, ['export', '-c', 'users'], '', ENV);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(lines(plain.stdout).length, 3);
      assert.ok(!plain.stdout.includes('password') && !plain.stdout.includes('$scrypt$'), plain.stdout);

      const file = join(dir, 'users.ndjson');
      const hashed = await cli(source.url, ['export', '-c', 'users', '--password-hashes', '-o', file], '', ENV);
      assert.equal(hashed.code, 0, hashed.stderr);
      assert.equal(statSync(file).mode & 0o777, 0o600, 'a file of hashes only its owner reads');
      const exported = lines(readFileSync(file, 'utf8'));
      assert.deepEqual(
        exported.map((r) => r.email),
        ['ada@example.com', 'cy@example.com', 'bob@example.com'],
      );
      for (const [i, record] of exported.entries()) {
        if (i === 1) assert.equal(record.password, undefined, 'an account without a password gets none');
        else assert.match(String(record.password), /^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
        const { password: _, ...rest } = record;
        assert.deepEqual(rest, lines(plain.stdout)[i], 'the same record, with its hash added');
      }

      const target = await fresh();
      const imported = await cli(target.url, ['import', file, '-c', 'users'], '', ENV);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /^imported 3 users \(0 with new ids, 3 with their own\) in /);
      assert.deepEqual(
        (await secrets(target)).map((row) => row.hash),
        [exported[0]?.password, exported[2]?.password],
        'the hashes are kept as they were',
      );
      assert.ok((await data(target)).every((row) => !String(row.data).includes('password')));
      assert.equal(await signInStatus(target, 'ada@example.com', PASSWORDS.ada), 200);
      assert.equal(await signInStatus(target, 'bob@example.com', PASSWORDS.bob), 200);
      assert.equal(await signInStatus(target, 'bob@example.com', PASSWORDS.ada), 401);
      assert.equal(await signInStatus(target, 'cy@example.com', PASSWORDS.ada), 401);

      // Without SCHEMAS, users is the default collection, which holds no accounts: a hash would
      // be kept as an ordinary field that every read and export shows, so the import is refused.
      const elsewhere = await fresh();
      const { SCHEMAS: _, ...noSchemas } = ENV;
      for (const dryRun of [[], ['--dry-run']]) {
        const refused = await cli(elsewhere.url, ['import', file, '-c', 'users', ...dryRun], '', noSchemas);
        assert.equal(refused.code, 1, refused.stdout);
        assert.match(
          refused.stderr,
          /^restock: line 1: password holds a password hash, which only a collection of accounts keeps \(x-auth in its schema\), and users holds none: is SCHEMAS set to the folder that declares it\?\n/,
        );
      }
      const left = await cli(elsewhere.url, ['export', '-c', 'users'], '', noSchemas);
      assert.equal(left.stdout, '', 'nothing was imported');
    });

    it('refuses --password-hashes for a collection that holds no accounts', async () => {
      const db = await fresh();
      await assert.rejects(
        cli(db.url, ['export', '-c', 'products', '--password-hashes'], '', ENV),
        (error: Error) =>
          error instanceof ConfigError && /^--password-hashes is for a collection of accounts/.test(error.message),
      );
    });

    it('hashes plain-text passwords after checking them, never writing them; --dry-run writes nothing', async () => {
      const db = await fresh();
      const input = ndjson([
        { name: 'Dee', email: 'dee@example.com', password: PLAIN.dee },
        { name: 'Eve', email: 'eve@example.com', password: PLAIN.eve },
      ]);
      const bad = ndjson([
        { name: 'Fay', email: 'fay@example.com', password: 'short' },
        { name: 'Gil', email: 'gil@example.com', password: 42 },
      ]);
      const refused = await cli(db.url, ['import', '-', '-c', 'users', '--dry-run'], bad, ENV);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /line 1: breaks the schema: \/password .*8/);
      assert.match(refused.stderr, /line 2: breaks the schema: \/password must be a string/);
      const stopped = await cli(db.url, ['import', '-', '-c', 'users'], bad, ENV);
      assert.equal(stopped.code, 1);
      assert.match(stopped.stderr, /line 1: breaks the schema: \/password/);

      const checked = await cli(db.url, ['import', '-', '-c', 'users', '--dry-run'], input, ENV);
      assert.equal(checked.code, 0, checked.stderr);
      assert.match(checked.stdout, /2 plain-text passwords would be hashed; nothing was written\n$/);
      assert.deepEqual(await data(db), [], 'a dry run writes no record');
      assert.deepEqual(await secrets(db), [], 'nor any password');

      const imported = await cli(db.url, ['import', '-', '-c', 'users'], input, ENV);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /\(2 with new ids, 0 with their own, 2 plain-text passwords hashed\)/);
      const stored = await data(db);
      assert.deepEqual(
        stored.map((row) => JSON.parse(String(row.data))),
        [
          { name: 'Dee', email: 'dee@example.com' },
          { name: 'Eve', email: 'eve@example.com' },
        ],
      );
      const hashes = await secrets(db);
      assert.equal(hashes.length, 2);
      for (const row of hashes) assert.match(String(row.hash), /^\$scrypt\$ln=10,r=8,p=1\$/, 'at the configured cost');
      for (const text of [...stored.map((row) => String(row.data)), ...hashes.map((row) => String(row.hash))]) {
        assert.ok(!text.includes(PLAIN.dee) && !text.includes(PLAIN.eve), text);
      }
      assert.equal(await signInStatus(db, 'dee@example.com', PLAIN.dee), 200);
      assert.equal(await signInStatus(db, 'eve@example.com', PLAIN.eve), 200);

      // --upsert: a line with a password replaces it, a line without keeps the stored one.
      const ids = lines((await cli(db.url, ['export', '-c', 'users'], '', ENV)).stdout);
      const changed = ndjson([
        { ...ids[0], name: 'Dee Two', password: 'a new plain password' },
        { ...ids[1], name: 'Eve Two' },
      ]);
      const upserted = await cli(db.url, ['import', '-', '-c', 'users', '--upsert', 'id'], changed, ENV);
      assert.equal(upserted.code, 0, upserted.stderr);
      assert.match(upserted.stdout, /\(0 created, 2 replaced, 1 plain-text passwords hashed\)/);
      assert.deepEqual(
        (await data(db)).map((row) => JSON.parse(String(row.data)).name),
        ['Dee Two', 'Eve Two'],
      );
      assert.ok((await data(db)).every((row) => !String(row.data).includes('password')));
      assert.equal(await signInStatus(db, 'dee@example.com', 'a new plain password'), 200);
      assert.equal(await signInStatus(db, 'dee@example.com', PLAIN.dee), 401);
      assert.equal(await signInStatus(db, 'eve@example.com', PLAIN.eve), 200, 'no password in the line: kept');
    });
  });
}

describe('restock help for accounts', () => {
  it('lists the settings each command reads beyond its groups', async () => {
    const rotate = (await cli('sqlite::memory:', ['rotate-keys', '--help'])).stdout;
    assert.match(rotate, /--access-token-minutes +ACCESS_TOKEN_MINUTES/);
    assert.match(rotate, /DATABASE_URL/);
    assert.doesNotMatch(rotate, /PASSWORD_HASH_COST|--port/);
    const imports = (await cli('sqlite::memory:', ['import', '--help'])).stdout;
    assert.match(imports, /--password-hash-cost +PASSWORD_HASH_COST/);
    assert.doesNotMatch(imports, /ACCESS_TOKEN_MINUTES/);
    assert.match((await cli('sqlite::memory:', ['export', '--help'])).stdout, /--password-hashes/);
  });
});
