/**
 * What only PostgreSQL has: many instances migrating one database at once, numbering
 * changes after they commit, and folding case with or without ICU. Its network failing:
 * test/postgres-outages.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openStore } from '../src/store/open-store.js';
import { postgresAdapter, postgresDialectFor } from '../src/store/postgres/postgres-dialect.js';
import { foldCase } from '../src/store/sql/case-fold.js';
import { selectPage } from '../src/store/sql/list-sql.js';
import { catalogOf } from './helpers/catalog.js';
import { POSTGRES_AVAILABLE, postgresKind } from './helpers/stores.js';

const _json = { 'content-type': 'application/json' };

/** The collections of an instance whose users' schema makes email unique. */
const WITH_UNIQUE_EMAIL = catalogOf(['users', 'products'], {
  unique: [{ collection: 'users', path: ['email'], ignoreCase: true }],
});

describe('migrations and the change log (postgres)', {
  skip: !POSTGRES_AVAILABLE && 'PostgreSQL does not answer',
}, () => {
  it("numbers a transaction's changes in one pass, however few a pass takes, so that a feed never shows part of one", async () => {
    const db = await postgresKind.create();
    const client = new pg.Client({ connectionString: db.url });
    try {
      // Tables, triggers and the numbering function, then no restock running to number anything.
      await (await openStore(db.url, catalogOf(['users']))).close();
      await client.connect();
      const insert = (name: string) => client.query('INSERT INTO users (data) VALUES ($1)', [JSON.stringify({ name })]);
      await client.query('BEGIN');
      for (const name of ['a', 'b', 'c']) await insert(name);
      await client.query('COMMIT');
      await insert('d');
      const numbered = async () =>
        (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM changes WHERE collection = 'users'")).rows[0]
          ?.n;
      const pass = async () => (await client.query<{ n: number }>('SELECT restock_number_changes(2) AS n')).rows[0]?.n;
      assert.equal(await pass(), 3, 'a pass of 2 takes the whole first transaction');
      assert.equal(await numbered(), 3);
      assert.equal(await pass(), 1);
      assert.equal(await numbered(), 4);
    } finally {
      await client.end();
      await db.drop();
    }
  });

  it('migrates once when ten instances start together', async () => {
    const db = await postgresKind.create();
    try {
      const stores = await Promise.all(
        Array.from({ length: 10 }, () => openStore(db.url, catalogOf(['users', 'products']))),
      );
      await Promise.all(stores.map((store) => store.close()));
      // Unique indexes are made under the same lock: ten starts creating one index all succeed.
      const starts = await Promise.allSettled(Array.from({ length: 10 }, () => openStore(db.url, WITH_UNIQUE_EMAIL)));
      for (const start of starts) if (start.status === 'fulfilled') await start.value.close();
      const failed = starts.filter((start) => start.status === 'rejected').map((start) => String(start.reason));
      assert.deepEqual(failed, [], 'every instance with a unique field started');
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query('SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version');
      await client.end();
      assert.ok(rows.length > 0);
      for (const row of rows) assert.equal(row.n, 1, `migration ${row.version} recorded once`);
    } finally {
      await db.drop();
    }
  });

  it('folds case in search alike with ICU and without it (a table of code points), as JavaScript does', async () => {
    const db = await postgresKind.create();
    const store = await openStore(db.url, catalogOf(['things']));
    const client = new pg.Client({ connectionString: db.url });
    try {
      const texts = ['Éclair au café', 'ΟΔΟΣ', 'Straße', 'ПРИВЕТ мир', 'İstanbul', 'plain ASCII', '漢字 ǅ', 'Ωmega'];
      await store.collection('things').createMany(texts.map((text) => JSON.stringify({ text })));
      await client.connect();
      const needles = ['éclair', 'CAFÉ', 'σ', 'ς', 'STRAẞE', 'привет', 'İSTANBUL', 'ascii', 'ǆ', '字', 'ωMEGA', 'x'];
      for (const search of needles) {
        const expected = texts.filter((text) => foldCase(text).includes(foldCase(search)));
        for (const hasIcu of [true, false]) {
          const query = { where: [], search, sort: [], limit: 100 };
          const sql = selectPage(
            { dialect: postgresDialectFor(hasIcu), adapter: postgresAdapter },
            () => false,
            'things',
            'data',
            query,
          );
          const { rows } = await client.query<{ data: { text: string } }>(sql.text, sql.values);
          assert.deepEqual(
            rows.map((row) => row.data.text),
            expected,
            `${search} ${hasIcu ? 'with' : 'without'} ICU`,
          );
        }
      }
    } finally {
      await client.end();
      await store.close();
      await db.drop();
    }
  });

  it('refuses ten starts together over duplicates, each in one line naming them', async () => {
    const db = await postgresKind.create();
    try {
      const plain = await openStore(db.url, catalogOf(['users', 'products']));
      const users = plain.collection('users');
      const [first, second] = await users.createMany(['{"email":"dup@example.com"}', '{"email":"DUP@example.com"}']);
      await plain.close();
      const starts = await Promise.allSettled(Array.from({ length: 10 }, () => openStore(db.url, WITH_UNIQUE_EMAIL)));
      for (const start of starts) {
        assert.equal(start.status, 'rejected');
        const error = (start as PromiseRejectedResult).reason as Error;
        assert.equal(error.name, 'StoreSetupError', error.message);
        assert.match(error.message, /^cannot make users\.email unique: 2 share "dup@example\.com"/);
        assert.ok(error.message.includes(`ids ${first?.id}, ${second?.id}`), error.message);
        assert.ok(!error.message.includes('\n'));
      }
    } finally {
      await db.drop();
    }
  });

  it('listens for changes on one connection, however many in the process watch the change log', async () => {
    const db = await postgresKind.create();
    const store = await openStore(db.url, catalogOf(['users', 'products']));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const listeners = async () => {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'restock-changes'",
      );
      return (rows[0] as { n: number }).n;
    };
    try {
      const heard = [false, false];
      const stops = heard.map((_, i) => store.changes.watch((collection) => (heard[i] ||= collection === 'users')));
      // A notification reaches a watcher only through a connection that LISTENs: once both
      // have heard one, every connection they needed is open.
      for (let tries = 0; !heard.every(Boolean); tries++) {
        assert.ok(tries < 100, 'both watchers heard a change');
        await store.collection('users').create('{"name":"noticed"}');
        await sleep(50);
      }
      assert.equal(await listeners(), 1);
      stops[0]?.();
      assert.equal(await listeners(), 1, 'the other still watches');
      stops[1]?.();
      for (let tries = 0; (await listeners()) > 0; tries++) {
        assert.ok(tries < 100, 'the last watcher gone, the connection ends');
        await sleep(50);
      }
    } finally {
      await client.end();
      await store.close();
      await db.drop();
    }
  });
});
