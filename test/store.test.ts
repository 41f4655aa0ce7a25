/** The storage interface itself, run against every store. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`store (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, ['things']);
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('creates many records in one transaction, all or none', async () => {
      const things = store.collection('things');
      const made = await things.createMany(['{"a":1}', '{"a":2}', '{}']);
      assert.deepEqual(
        made.map((r) => r.data),
        ['{"a":1}', '{"a":2}', '{}'],
      );
      assert.ok((made[0]?.id ?? 0) < (made[1]?.id ?? 0));
      const before = (await things.list({ limit: 1000 })).length;
      await assert.rejects(things.createMany(['{"b":1}', 'not json']));
      assert.equal((await things.list({ limit: 1000 })).length, before, 'nothing of the failed batch was written');
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
      assert.deepEqual(await things.get(5000), old);
      assert.ok((await things.create('{}')).id > 5000);
      await assert.rejects(things.restore([{ ...old, id: 6000 }, old]), 'a taken id fails the batch');
      assert.equal(await things.get(6000), undefined, 'nothing of the failed batch was written');
    });

    it('merges inside the database and bumps the version', async () => {
      const things = store.collection('things');
      const made = await things.create('{"a":{"x":1},"b":2}');
      const merged = await things.merge(made.id, '{"a":{"y":2},"b":null}');
      assert.equal(merged?.data, '{"a":{"x":1,"y":2}}');
      assert.equal(merged?.version, made.version + 1);
      assert.equal(await things.merge(999999, '{}'), undefined);
      assert.equal(await things.remove(999999), undefined);
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
      const reopened = await openStore(db.url, ['things']);
      try {
        const again = reopened.collection('things');
        const all = (await again.list({ limit: 10_000 })).map((r) => r.data);
        for (const n of [1, 2, 3]) assert.ok(all.includes(`{"concurrent":${n}}`), `concurrent ${n}`);
        assert.ok(!all.includes('{"concurrent":4}'), 'a failed createMany wrote none of its records');
        assert.equal((await again.get(kept.id))?.data, '{"kept":1}');
        assert.equal(await again.get(doomed.id), undefined);
      } finally {
        await reopened.close();
      }
    });

    it('migrates once, and again is a no-op', async () => {
      const again = await openStore(db.url, ['things']);
      await again.close();
      assert.ok((await store.collection('things').list({ limit: 1 })).length === 1);
    });
  });
}

describe('DATABASE_URL', () => {
  it('opens sqlite::memory: and refuses what it does not know, naming the setting', async () => {
    const memory = await openStore('sqlite::memory:', ['things']);
    assert.equal((await memory.collection('things').create('{"a":1}')).id, 1);
    await memory.close();
    await assert.rejects(openStore('mysql://localhost/x', ['things']), /DATABASE_URL/);
    await assert.rejects(openStore('sqlite:', ['things']), /DATABASE_URL/);
  });
});
