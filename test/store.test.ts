/** The storage interface itself, run against every store. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { DEFAULT_STORE_OPTIONS, openStore } from '../src/store/open-store.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { type Store, type UniqueField, UniqueViolationError } from '../src/store/store.js';
import { catalogOf } from './helpers/catalog.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`store (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, catalogOf(['things', 'fresh', 'many']));
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('creates many records in one transaction, all or none', async () => {
      const things = store.collection('things');
      const made = await things.createMany(['{"a":1}', '{"a":2}', '{}']);
      assert.deepEqual(
        made.map((r) => JSON.parse(r.data)),
        [{ a: 1 }, { a: 2 }, {}],
      );
      assert.ok((made[0]?.id ?? 0) < (made[1]?.id ?? 0));
      const before = (await things.list({ where: [], sort: [], limit: 1000 })).length;
      await assert.rejects(things.createMany(['{"b":1}', 'not json']));
      assert.equal(
        (await things.list({ where: [], sort: [], limit: 1000 })).length,
        before,
        'nothing of the failed batch was written',
      );
    });

    it('reads any number of ids at once, those that exist', async () => {
      const many = store.collection('many');
      const made = await many.createMany(Array.from({ length: 2500 }, (_, i) => JSON.stringify({ i })));
      const ids = made.map((record) => record.id);
      const asked = [...ids, ...ids.map((id) => id + 100_000)].reverse();
      const found = await many.getMany(asked);
      assert.deepEqual(
        found.map((record) => record.id).sort((a, b) => a - b),
        ids,
      );
      assert.deepEqual(await many.getMany([]), []);
    });

    it('restores records exactly, then numbers new ones above them', async () => {
      const things = store.collection('things');
      const old = {
        id: 5000,
        data: '{"kept":true}',
        version: 7,
        createdAt: '2020-01-01T00:00:00.000Z',
        updatedAt: '2021-01-01T00:00:00.000Z',
      };
      await things.restore([old]);
      const restored = await things.get(5000);
      assert.deepEqual({ ...restored, data: JSON.parse(restored?.data ?? '') }, { ...old, data: { kept: true } });
      assert.ok((await things.create('{}')).id > 5000);
      await assert.rejects(things.restore([{ ...old, id: 6000 }, old]), 'a taken id fails the batch');
      assert.equal(await things.get(6000), undefined, 'nothing of the failed batch was written');

      const fresh = store.collection('fresh');
      await fresh.restore([{ ...old, id: 1 }]);
      assert.equal((await fresh.create('{}')).id, 2, 'a collection that never made an id starts above the restored');
    });

    it('merges inside the database and bumps the version', async () => {
      const things = store.collection('things');
      const made = await things.create('{"a":{"x":1},"b":2}');
      const merged = await things.merge(made.id, '{"a":{"y":2},"b":null}');
      assert.deepEqual(JSON.parse(merged?.data ?? ''), { a: { x: 1, y: 2 } });
      assert.equal(merged?.version, made.version + 1);
      assert.equal(await things.merge(999999, '{}'), undefined);
      assert.equal(await things.remove(999999), undefined);
    });

    it('applies JSON Merge Patch exactly as RFC 7396 (its appendix A, for objects)', async () => {
      const things = store.collection('things');
      const cases: [unknown, unknown, unknown][] = [
        [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
        [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
        [{ a: 'b' }, { a: null }, {}],
        [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
        [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
        [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
        [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
        [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
        [{ e: null }, { a: 1 }, { e: null, a: 1 }],
        [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
        [{ a: 1 }, { a: { b: null, c: [null] } }, { a: { c: [null] } }],
        [{ a: { b: 1 } }, {}, { a: { b: 1 } }],
      ];
      for (const [target, patch, expected] of cases) {
        const made = await things.create(JSON.stringify(target));
        const merged = await things.merge(made.id, JSON.stringify(patch));
        assert.deepEqual(
          JSON.parse(merged?.data ?? ''),
          expected,
          `${JSON.stringify(target)} + ${JSON.stringify(patch)}`,
        );
      }
    });

    it('keeps every field of 100 concurrent merges into one record', async () => {
      const things = store.collection('things');
      const made = await things.create('{}');
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => things.merge(made.id, JSON.stringify({ [`f${i}`]: { n: i } }))),
      );
      assert.equal(new Set(results.map((r) => r?.version)).size, 100, 'each merge saw its own version');
      const final = JSON.parse((await things.get(made.id))?.data ?? '');
      for (let i = 0; i < 100; i++) assert.deepEqual(final[`f${i}`], { n: i }, `f${i}`);
    });

    it('never hands out an id again, also after deleting the newest record', async () => {
      const things = store.collection('things');
      const newest = await things.create('{}');
      assert.deepEqual(await things.remove(newest.id), newest);
      assert.ok((await things.create('{}')).id > newest.id);
    });

    it('keeps Idempotency-Key claims: claim, running, take-over when stale, release, complete, sweep', async () => {
      const keys = store.idempotency;
      const things = store.collection('things');
      assert.equal((await keys.claim('s', 'k', 'f1', 'first', 60_000)).state, 'claimed');
      assert.equal((await keys.claim('s', 'k', 'f1', 'second', 60_000)).state, 'running');
      assert.equal((await keys.claim('s', 'k', 'f2', 'second', 60_000)).state, 'mismatch');
      assert.equal((await keys.claim('other scope', 'k', 'f2', 'x', 60_000)).state, 'claimed', 'scopes never meet');
      // The first holder is presumed dead once its claim is stale; a late completion by it then fails.
      // Stale means older than the limit (0 ms here): the clock must first pass the claim's millisecond.
      await sleep(2);
      assert.equal((await keys.claim('s', 'k', 'f1', 'second', 0)).state, 'claimed');
      await assert.rejects(things.create('{"late":true}', { scope: 's', key: 'k', token: 'first' }), /taken over/);
      const made = await things.create('{"on":"time"}', { scope: 's', key: 'k', token: 'second' });
      const done = await keys.claim('s', 'k', 'f1', 'third', 60_000);
      assert.deepEqual(done, { state: 'done', collection: 'things', record: made });
      const late = await things.list({
        where: [{ field: { path: ['late'] }, op: 'eq', value: true }],
        sort: [],
        limit: 5,
      });
      assert.equal(late.length, 0, 'the create that lost its claim wrote nothing');

      assert.equal((await keys.claim('s', 'released', 'f', 'a', 60_000)).state, 'claimed');
      await keys.release('s', 'released', 'a');
      assert.equal((await keys.claim('s', 'released', 'f', 'b', 60_000)).state, 'claimed', 'free again once released');

      assert.ok((await keys.sweep(new Date(Date.now() + 60_000))) >= 3);
      assert.equal((await keys.claim('s', 'k', 'f2', 'fourth', 60_000)).state, 'claimed', 'a swept key is new again');
      assert.equal(await keys.sweep(new Date(Date.now() - 60_000)), 0, 'young keys are kept');
    });

    it('fails only the failing one of concurrent writes; the others are durable and visible', async () => {
      const things = store.collection('things');
      const [kept, doomed] = await things.createMany(['{"kept":0}', '{"doomed":0}']);
      assert.ok(kept && doomed);
      const settled = await Promise.allSettled([
        things.create('{"concurrent":1}'),
        things.create('not json'),
        things.merge(kept.id, '{"kept":1}'),
        things.merge(kept.id, 'not json either'),
        things.remove(doomed.id),
        things.createMany(['{"concurrent":2}', '{"concurrent":3}']),
        things.createMany(['{"concurrent":4}', '{not json']),
      ]);
      assert.deepEqual(
        settled.map((s) => s.status),
        ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'rejected'],
      );
      // Another connection, as after a restart, sees every acknowledged write and nothing else.
      const reopened = await openStore(db.url, catalogOf(['things']));
      try {
        const again = reopened.collection('things');
        const all = (await again.list({ where: [], sort: [], limit: 10_000 })).map((r) => JSON.parse(r.data));
        const concurrent = all.map((fields) => fields.concurrent).filter((n) => n !== undefined);
        assert.deepEqual(concurrent.sort(), [1, 2, 3], 'a failed createMany wrote none of its records');
        assert.deepEqual(JSON.parse((await again.get(kept.id))?.data ?? ''), { kept: 1 });
        assert.equal(await again.get(doomed.id), undefined);
      } finally {
        await reopened.close();
      }
    });

    it('searches ignoring case beyond ASCII, the same on every store', async () => {
      const things = store.collection('things');
      const texts = ['Éclair au café', 'ΟΔΟΣ', 'Straße', 'ПРИВЕТ мир', 'plain ascii'];
      await things.createMany(texts.map((text) => JSON.stringify({ nested: { text } })));
      const cases: [string, string[]][] = [
        ['éclair', ['Éclair au café']],
        ['CAFÉ', ['Éclair au café']],
        ['οδος', ['ΟΔΟΣ']],
        // A final sigma is a sigma: σ and ς find each other.
        ['σ', ['ΟΔΟΣ']],
        ['ς', ['ΟΔΟΣ']],
        ['STRAẞE', ['Straße']],
        ['привет МИР', ['ПРИВЕТ мир']],
        ['PLAIN', ['plain ascii']],
        ['strasse', []],
      ];
      for (const [search, expected] of cases) {
        const found = await things.list({ where: [], search, sort: [], limit: 100 });
        assert.deepEqual(
          found.map((r) => JSON.parse(r.data).nested?.text),
          expected,
          search,
        );
        assert.equal(await things.count({ where: [], search }), expected.length, `count of ${search}`);
      }
    });

    it('keeps the search index current with every create, merge, delete and restore', async () => {
      const fresh = store.collection('fresh');
      const search = async (text: string) =>
        (await fresh.list({ where: [], search: text, sort: [], limit: 10 })).map((record) => record.id);
      const kettle = await fresh.create('{"name":"Blue Kettle","tags":["Steel"]}');
      assert.deepEqual(await search('kettle'), [kettle.id]);
      assert.deepEqual(await search('steel'), [kettle.id]);
      await fresh.merge(kettle.id, '{"name":"Red Teapot"}');
      assert.deepEqual(await search('kettle'), [], 'the old text is gone from the index');
      assert.deepEqual(await search('teapot'), [kettle.id]);
      assert.deepEqual(await search('steel'), [kettle.id], 'and the untouched field stays');
      await fresh.restore([
        {
          id: 900,
          data: '{"name":"Kettle Drum"}',
          version: 3,
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
      ]);
      assert.deepEqual(await search('ettle'), [900]);
      await fresh.remove(kettle.id);
      await fresh.remove(900);
      assert.deepEqual([...(await search('teapot')), ...(await search('drum'))], []);
      // A write that rolls back leaves the index as it was.
      await assert.rejects(
        fresh.merge((await fresh.create('{"name":"Copper Pan"}')).id, '{"name":"Iron Pan"}', {
          check: () => {
            throw new Error('refused');
          },
        }),
      );
      assert.deepEqual(await search('iron'), []);
      assert.equal((await search('copper')).length, 1);
    });

    it('drops the search index with SEARCH_INDEX=false, searches alike without it, and makes it again', async () => {
      const found = async (target: Store) =>
        (await target.collection('things').list({ where: [], search: 'lantern', sort: [], limit: 10 })).map(
          (record) => record.id,
        );
      const lantern = await store.collection('things').create('{"name":"Brass Lantern"}');
      const without = await openStore(db.url, catalogOf(['things']), { ...DEFAULT_STORE_OPTIONS, searchIndex: false });
      try {
        assert.equal(await searchIndexExists(db.url, 'things'), false);
        const unindexed = await without.collection('things').create('{"note":"a lantern, unindexed"}');
        assert.deepEqual(await found(without), [lantern.id, unindexed.id]);
        await without.collection('things').remove(unindexed.id);
      } finally {
        await without.close();
      }
      const again = await openStore(db.url, catalogOf(['things']), DEFAULT_STORE_OPTIONS);
      try {
        assert.equal(await searchIndexExists(db.url, 'things'), true);
        assert.deepEqual(await found(again), [lantern.id], 'rebuilt from the records as they are now');
      } finally {
        await again.close();
      }
    });

    it('migrates once, and again is a no-op', async () => {
      const again = await openStore(db.url, catalogOf(['things']));
      await again.close();
      assert.ok((await store.collection('things').list({ where: [], sort: [], limit: 1 })).length === 1);
    });

    it('makes the table and indexes of a collection added to an existing database, and keeps the rest', async () => {
      const indexes = [{ collection: 'orders', path: ['status'] }];
      const grown = await openStore(db.url, catalogOf(['things', 'fresh', 'orders'], { indexes }));
      try {
        const orders = grown.collection('orders');
        const made = await orders.create('{"status":"paid","total":12.5}');
        assert.equal(made.id, 1);
        await orders.create('{"status":"open"}');
        const paid = await orders.list({
          where: [{ field: { path: ['status'] }, op: 'eq', value: 'paid' }],
          sort: [],
          limit: 5,
        });
        assert.deepEqual(
          paid.map((record) => JSON.parse(record.data)),
          [{ status: 'paid', total: 12.5 }],
        );
        assert.ok((await grown.collection('things').list({ where: [], sort: [], limit: 1 })).length === 1);
      } finally {
        await grown.close();
      }
      // Served no longer: its table stays, with its records, for the day it is served again.
      await (await openStore(db.url, catalogOf(['things', 'fresh']))).close();
      const again = await openStore(db.url, catalogOf(['orders']));
      try {
        assert.equal(await again.collection('orders').count({ where: [] }), 2);
      } finally {
        await again.close();
      }
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`unique fields (${kind.name})`, () => {
    const sku: UniqueField = { collection: 'products', path: ['sku'], ignoreCase: false };
    const code: UniqueField = { collection: 'products', path: ['meta', 'code'], ignoreCase: true };
    const open = (db: TestDatabase, unique: UniqueField[]) => openStore(db.url, catalogOf(['products'], { unique }));
    /** Runs `test` on a fresh database, dropped afterwards. */
    const onFreshDatabase = async (test: (db: TestDatabase) => Promise<void>) => {
      const db = await kind.create();
      try {
        await test(db);
      } finally {
        await db.drop();
      }
    };

    it('stops holding a field dropped from x-unique: a duplicate is then stored', () =>
      onFreshDatabase(async (db) => {
        const strict = await open(db, [sku]);
        await strict.collection('products').create('{"sku":"S-1"}');
        await assert.rejects(strict.collection('products').create('{"sku":"S-1"}'), UniqueViolationError);
        await strict.close();
        const relaxed = await open(db, []);
        try {
          const again = await relaxed.collection('products').create('{"sku":"S-1"}');
          assert.equal(JSON.parse(again.data).sku, 'S-1');
        } finally {
          await relaxed.close();
        }
      }));

    it('names the field of a unique index that another instance made (a newer configuration)', () =>
      onFreshDatabase(async (db) => {
        const older = await open(db, []);
        try {
          await older.collection('products').create('{"meta":{"code":"C-1"}}');
          await (await open(db, [code])).close();
          await assert.rejects(
            older.collection('products').create('{"meta":{"code":"c-1"}}'),
            (error: Error) =>
              error instanceof UniqueViolationError &&
              error.collection === 'products' &&
              error.path.join('.') === 'meta.code',
          );
        } finally {
          await older.close();
        }
      }));
  });
}

describe('DATABASE_URL', () => {
  it('opens sqlite::memory: and refuses what it does not know, naming the setting', async () => {
    const memory = await openStore('sqlite::memory:', catalogOf(['things']));
    assert.equal((await memory.collection('things').create('{"a":1}')).id, 1);
    await memory.close();
    await assert.rejects(openStore('mysql://localhost/x', catalogOf(['things'])), /DATABASE_URL/);
    await assert.rejects(openStore('sqlite:', catalogOf(['things'])), /DATABASE_URL/);
  });
});

/** Whether the search index of `table` is in the database at `url` (an FTS5 table, or a GIN index). */
async function searchIndexExists(url: string, table: string): Promise<boolean> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(`${table}_search`) !== undefined;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_indexes WHERE indexname = $1', [`${table}_search`])).rowCount === 1;
  } finally {
    await client.end();
  }
}
