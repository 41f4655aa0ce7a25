/** The store's batches, under the HTTP layer: one transaction over several collections, run against every store. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../src/store/open-store.js';
import {
  type BatchStep,
  BatchStepError,
  PreconditionFailedError,
  StatementTimeoutError,
  type Store,
  type StoredRecord,
} from '../src/store/store.js';
import { catalogOf } from './helpers/catalog.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/** A plan that gives `steps` in order, each made from the results before it. */
function planOf(steps: readonly ((done: readonly (StoredRecord | undefined)[]) => BatchStep)[], budgetMs = 60_000) {
  return { next: (done: readonly (StoredRecord | undefined)[]) => steps[done.length]?.(done), budgetMs };
}

const create = (collection: string, fields: object) => () => ({
  collection,
  kind: 'create' as const,
  data: JSON.stringify(fields),
});
const merge = (collection: string, id: number, patch: object, ifVersion?: number[]) => (): BatchStep => ({
  collection,
  kind: 'merge',
  id,
  patch,
  conditions: ifVersion ? { ifVersion } : {},
});

for (const kind of STORE_KINDS) {
  describe(`batches in the store (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, catalogOf(['carts', 'items']));
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    const count = async (collection: string) =>
      (await store.collection(collection).list({ where: [], sort: [], limit: 10_000 })).length;

    it('runs steps of several collections in order, each seeing the results before it', async () => {
      const results = await store.batch(
        planOf([
          create('carts', { name: 'a' }),
          (done) => create('items', { cartId: done[0]?.id })(),
          (done) => merge('carts', done[0]?.id ?? 0, { items: 1 })(),
          (done) => ({ collection: 'items', kind: 'read', id: done[1]?.id ?? 0 }),
          (done) => ({ collection: 'items', kind: 'remove', id: done[1]?.id ?? 0, conditions: {} }),
        ]),
      );
      const [cart, item, merged, read, removed] = results;
      assert.deepEqual(JSON.parse(item?.data ?? ''), { cartId: cart?.id });
      assert.deepEqual(JSON.parse(merged?.data ?? ''), { name: 'a', items: 1 });
      assert.equal(merged?.version, 2);
      assert.deepEqual(read, item);
      assert.equal(removed?.id, item?.id);
      assert.equal(await store.collection('items').get(item?.id ?? 0), undefined);
    });

    it('keeps nothing of a batch whose step fails, and names the step', async () => {
      const [carts, items] = [await count('carts'), await count('items')];
      const cart = await store.collection('carts').create('{"name":"b"}');
      const failed = await store
        .batch(planOf([create('carts', {}), create('items', {}), merge('carts', cart.id, { x: 1 }, [99])]))
        .then(
          () => assert.fail('the batch ran'),
          (error: unknown) => error,
        );
      assert.ok(failed instanceof BatchStepError);
      assert.equal(failed.index, 2);
      assert.ok(failed.cause instanceof PreconditionFailedError);
      assert.deepEqual([await count('carts'), await count('items')], [carts + 1, items]);
      assert.equal((await store.collection('carts').get(cart.id))?.version, 1);
    });

    it('stops a step its plan refuses once the results before it are known, naming it', async () => {
      const before = await count('carts');
      const refused = new Error('refused');
      const failed = await store
        .batch(
          planOf([
            create('carts', {}),
            () => {
              throw refused;
            },
          ]),
        )
        .catch((error: unknown) => error);
      assert.ok(failed instanceof BatchStepError);
      assert.equal(failed.index, 1);
      assert.equal(failed.cause, refused);
      assert.equal(await count('carts'), before);
    });

    it('stops a batch past its time budget, keeping nothing', async () => {
      const before = await count('carts');
      const steps = Array.from({ length: 3 }, () => create('carts', {}));
      await assert.rejects(store.batch(planOf(steps, -1)), StatementTimeoutError);
      assert.equal(await count('carts'), before);
    });

    it('runs batches that take the same records in opposite orders, all of them', async () => {
      const [a, b] = await store.collection('carts').createMany(['{"n":0}', '{"n":0}']);
      const [first, second] = [a?.id ?? 0, b?.id ?? 0];
      const rounds = 10;
      for (let round = 0; round < rounds; round++) {
        // On PostgreSQL two of these may deadlock: the one it breaks off runs again.
        await Promise.all([
          store.batch(planOf([merge('carts', first, { n: round }), merge('carts', second, { n: round })])),
          store.batch(planOf([merge('carts', second, { m: round }), merge('carts', first, { m: round })])),
        ]);
      }
      for (const id of [first, second]) {
        const record = await store.collection('carts').get(id);
        assert.equal(record?.version, 1 + 2 * rounds, 'every merge of every batch was kept');
        assert.deepEqual(JSON.parse(record?.data ?? ''), { n: rounds - 1, m: rounds - 1 });
      }
    });
  });
}
