/**
 * The store's part of webhooks, on both stores: definitions whose places start at the logs'
 * ends, declared ones made exactly as a file says, leases one instance holds at a time, and
 * a holder's settle, refused once its lease or generation is stale. Times are the caller's
 * clock, passed in. Kept deliveries, replays, pauses and the trim: webhook-deliveries-store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORE_KINDS } from './helpers/stores.js';
import { delivery, hook, LEASE, NOW, spec, webhookStore } from './helpers/webhooks.js';

for (const kind of STORE_KINDS) {
  describe(`webhooks in the store (${kind.name})`, () => {
    const w = webhookStore(kind);
    it("starts a new webhook's places at its collections' last changes", async () => {
      await w.write('orders', 3);
      await w.write('items', 2);
      const webhook = await w.store.webhooks.create(hook(['orders', 'items', 'notes']), NOW);
      assert.equal(webhook.generation, 1);
      assert.deepEqual(webhook.secrets, { current: 'whsec_a', previous: null, previousUntil: null });
      assert.deepEqual(
        await w.store.webhooks.positions(webhook.id),
        new Map([
          ['items', await w.counter('items')],
          ['notes', 0],
          ['orders', await w.counter('orders')],
        ]),
      );
      assert.deepEqual(await w.store.webhooks.get(webhook.id), webhook);
      assert.ok((await w.store.webhooks.list()).some((one) => one.id === webhook.id));
      assert.ok((await w.store.webhooks.count()) >= 1);
    });

    it('updates a spec: a new collection starts at its end, a dropped one loses its place', async () => {
      const webhook = await w.store.webhooks.create(hook(['orders']), NOW);
      await w.write('items', 2);
      const updated = await w.store.webhooks.update(webhook.id, spec(['items'], 'https://example.com/b'), NOW + 1);
      assert.equal(updated?.url, 'https://example.com/b');
      assert.equal(updated?.generation, webhook.generation + 1);
      assert.equal(updated?.updatedAt, NOW + 1);
      assert.deepEqual(await w.store.webhooks.positions(webhook.id), new Map([['items', await w.counter('items')]]));
      assert.equal(await w.store.webhooks.update(999_999, spec(['items']), NOW), undefined);
      const rotated = await w.store.webhooks.rotateSecret(webhook.id, 'whsec_b', NOW + 5, NOW + 2);
      assert.deepEqual(rotated?.secrets, { current: 'whsec_b', previous: 'whsec_a', previousUntil: NOW + 5 });
      assert.equal(rotated?.generation, webhook.generation + 2);
    });

    it('makes the declared webhooks exactly those given, in one go', async () => {
      await w.store.webhooks.declare([hook(['orders'], 'one'), hook(['items'], 'two')], NOW);
      const byName = async () => new Map((await w.store.webhooks.list()).map((one) => [one.declaredAs, one]));
      const two = (await byName()).get('two');
      const removed = await w.store.webhooks.declare(
        [{ ...hook(['orders', 'items'], 'one'), secret: 'whsec_new' }, hook(['notes'], 'three')],
        NOW + 1,
      );
      assert.deepEqual(removed, ['two']);
      const now = await byName();
      assert.equal(now.get('two'), undefined);
      assert.deepEqual(now.get('one')?.collections, ['orders', 'items']);
      assert.equal(now.get('one')?.secrets.current, 'whsec_new');
      assert.ok((now.get('one')?.generation ?? 0) > 1);
      assert.deepEqual(now.get('three')?.collections, ['notes']);
      assert.equal((await w.store.webhooks.positions(two?.id ?? 0)).size, 0, 'a removed one loses its places');
      assert.deepEqual(await w.store.webhooks.declare([], NOW + 2), ['one', 'three']);
    });

    it('leases a webhook to one owner at a time, until the lease ends', async () => {
      const { id } = await w.store.webhooks.create(hook(['orders']), NOW);
      assert.ok(await w.store.webhooks.lease(id, 'a', NOW, LEASE));
      assert.equal(await w.store.webhooks.lease(id, 'b', NOW + 1, LEASE), undefined, 'held by a');
      assert.ok(await w.store.webhooks.lease(id, 'a', NOW + 2, LEASE), 'renewed by its holder');
      assert.equal(await w.store.webhooks.lease(id, 'b', NOW + LEASE, LEASE), undefined, 'the renewal counts');
      assert.ok(await w.store.webhooks.lease(id, 'b', NOW + 2 + LEASE, LEASE), 'taken over once ended');
      await w.store.webhooks.release(id, 'a');
      assert.equal(await w.store.webhooks.lease(id, 'a', NOW + 3 + LEASE, LEASE), undefined, 'not released by a');
      await w.store.webhooks.release(id, 'b');
      await w.store.webhooks.pause(id, 'failing', NOW);
      assert.equal((await w.store.webhooks.lease(id, 'a', NOW + 4 + LEASE, LEASE))?.pauseReason, 'failing');
      assert.equal(await w.store.webhooks.lease(999_999, 'a', NOW, LEASE), undefined);
    });

    it('settles only for the holder at its generation; places move on only; deliveries upserted', async () => {
      const webhook = await w.held(['orders']);
      const [first, second] = await w.write('orders', 2);
      assert.ok(first && second);
      const rows = [
        delivery(webhook.id, 'orders', first, 'retrying'),
        delivery(webhook.id, 'orders', second, 'waiting'),
      ];
      const places = new Map([['orders', second.seq]]);
      assert.equal(await w.store.webhooks.settle(webhook.id, 'b', webhook.generation, places, rows), false);
      assert.equal(await w.store.webhooks.settle(webhook.id, 'a', webhook.generation + 1, places, rows), false);
      assert.deepEqual(await w.store.webhooks.open(webhook.id), [], 'nothing written');
      assert.equal((await w.store.webhooks.positions(webhook.id)).get('orders'), first.seq - 1);
      assert.equal(await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, places, rows), true);
      assert.deepEqual(await w.store.webhooks.open(webhook.id), rows);
      const back = new Map([['orders', first.seq - 1]]);
      const done = { ...delivery(webhook.id, 'orders', first, 'delivered', NOW + 5), attempts: 2 };
      assert.equal(await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, back, [done]), true);
      assert.equal((await w.store.webhooks.positions(webhook.id)).get('orders'), second.seq, 'never back');
      assert.deepEqual(await w.store.webhooks.delivery(webhook.id, done.messageId), done);
      assert.deepEqual(await w.store.webhooks.open(webhook.id), [rows[1]]);
      const paused = await w.store.webhooks.pause(webhook.id, 'by hand', NOW);
      assert.equal(await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, back, []), false, 'stale');
      assert.equal(await w.store.webhooks.settle(webhook.id, 'a', paused?.generation ?? 0, back, []), true);
    });

    it('keeps a settle of 1,200 deliveries whole', async () => {
      const webhook = await w.held(['orders']);
      const [change] = await w.write('orders', 1);
      assert.ok(change);
      const many = Array.from({ length: 1200 }, (_, n) => ({
        ...delivery(webhook.id, 'orders', { ...change, seq: n + 1 }, 'delivered', NOW + n),
      }));
      assert.equal(await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, new Map(), many), true);
      const kept = await w.store.webhooks.deliveries(webhook.id, { limit: 2000 });
      assert.equal(kept.length, 1200);
      assert.deepEqual(kept[0], many[1199]);
    });

    if (kind.name === 'postgres') {
      it('grants one lease among many owners asking at once', async () => {
        const { id } = await w.store.webhooks.create(hook(['orders']), NOW);
        const owners = Array.from({ length: 24 }, (_, n) => `owner-${n}`);
        const leases = await Promise.all(owners.map((owner) => w.store.webhooks.lease(id, owner, NOW, LEASE)));
        assert.equal(leases.filter(Boolean).length, 1);
      });

      it('orders a settle and a pause made at once: no open delivery outlives the pause', async () => {
        const changes = await w.write('orders', 20);
        for (const change of changes) {
          const webhook = await w.held(['orders']);
          const open = [delivery(webhook.id, 'orders', change, 'retrying')];
          const places = new Map([['orders', change.seq]]);
          await Promise.all([
            w.store.webhooks.settle(webhook.id, 'a', webhook.generation, places, open),
            w.store.webhooks.pause(webhook.id, 'by hand', NOW),
          ]);
          assert.deepEqual(await w.store.webhooks.open(webhook.id), []);
        }
      });
    }
  });
}
