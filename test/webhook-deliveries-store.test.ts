/**
 * Webhooks' kept deliveries in the store, on both stores: listed newest first, by state and
 * page; replayed one by one or since a time (the log trimmed or not: a dead letter the log
 * still holds is forgotten, one it no longer holds is retried); made dead by a pause; and
 * trimmed to the newest successes and the recent dead letters. Times are the caller's clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Change, Delivery, DeliveryState } from '../src/store/store.js';
import { STORE_KINDS } from './helpers/stores.js';
import { delivery, NOW, webhookStore } from './helpers/webhooks.js';

for (const kind of STORE_KINDS) {
  describe(`webhooks' deliveries in the store (${kind.name})`, () => {
    const w = webhookStore(kind);
    it('lists kept deliveries newest first, by state, page by page', async () => {
      const webhook = await w.held(['orders']);
      const changes = await w.write('orders', 4);
      const states: DeliveryState[] = ['delivered', 'dead', 'delivered', 'retrying'];
      const rows = changes.map((change, n) => delivery(webhook.id, 'orders', change, states[n] ?? 'dead', NOW + n));
      await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, new Map(), rows);
      const messages = (list: Delivery[]) => list.map((one) => one.messageId);
      const ids = rows.map((one) => one.messageId);
      assert.deepEqual(messages(await w.store.webhooks.deliveries(webhook.id, { limit: 10 })), ids.toReversed());
      assert.deepEqual(messages(await w.store.webhooks.deliveries(webhook.id, { limit: 2 })), [ids[3], ids[2]]);
      const page = await w.store.webhooks.deliveries(webhook.id, { limit: 2, before: NOW + 2 });
      assert.deepEqual(messages(page), [ids[1], ids[0]]);
      const delivered = await w.store.webhooks.deliveries(webhook.id, { state: 'delivered', limit: 10 });
      assert.deepEqual(messages(delivered), [ids[2], ids[0]]);
      assert.equal(await w.store.webhooks.delivery(webhook.id, 'evt_orders_0'), undefined);
    });

    it('replays one delivery: retrying, due now, attempts from zero; the webhook resumes', async () => {
      const webhook = await w.held(['orders']);
      const [change] = await w.write('orders', 1);
      assert.ok(change);
      const dead = delivery(webhook.id, 'orders', change, 'dead');
      await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, new Map(), [dead]);
      const paused = await w.store.webhooks.pause(webhook.id, 'failing', NOW);
      assert.equal(await w.store.webhooks.replay(webhook.id, 'evt_orders_0', NOW + 9), false);
      assert.equal((await w.store.webhooks.get(webhook.id))?.generation, paused?.generation, 'nothing moved');
      assert.equal(await w.store.webhooks.replay(webhook.id, dead.messageId, NOW + 9), true);
      const replayed = await w.store.webhooks.delivery(webhook.id, dead.messageId);
      assert.equal(replayed?.state, 'retrying');
      assert.equal(replayed?.attempts, 0);
      assert.equal(replayed?.nextAt, NOW + 9);
      const resumed = await w.store.webhooks.get(webhook.id);
      assert.equal(resumed?.pausedAt, null);
      assert.equal(resumed?.generation, (paused?.generation ?? 0) + 1);
    });

    it('replays since a time: places back, dead letters the log holds forgotten, trimmed ones retried', async () => {
      const webhook = await w.held(['orders']);
      const start = await w.counter('orders');
      const [s1, s2, s3, s4] = await w.write('orders', 2).then(async (early) => {
        await w.past(early[1] as Change);
        return [...early, ...(await w.write('orders', 2))];
      });
      assert.ok(s1 && s2 && s3 && s4);
      const rows = [
        delivery(webhook.id, 'orders', s2, 'dead'),
        delivery(webhook.id, 'orders', s3, 'delivered'),
        delivery(webhook.id, 'orders', s4, 'dead'),
      ];
      await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, new Map([['orders', s4.seq]]), rows);
      const unmoved = await w.store.webhooks.replaySince(webhook.id, Date.now() + 60_000, NOW + 1);
      assert.deepEqual(unmoved, new Map([['orders', s4.seq]]), 'nothing logged since: the place stays');
      await w.store.webhooks.pause(webhook.id, 'failing', NOW);
      // The log forgets s1 and s2 (and any change before them): s2's dead letter is all that is left of it.
      await w.store.changes.trim(new Date(Date.parse(s3.loggedAt ?? '')));
      const generation = (await w.store.webhooks.get(webhook.id))?.generation ?? 0;
      const places = await w.store.webhooks.replaySince(webhook.id, Date.parse(s2.loggedAt ?? ''), NOW + 2);
      assert.deepEqual(places, new Map([['orders', s3.seq - 1]]));
      assert.ok(s3.seq - 1 >= start);
      assert.deepEqual(await w.store.webhooks.positions(webhook.id), places);
      assert.equal(await w.store.webhooks.delivery(webhook.id, rows[2]?.messageId ?? ''), undefined, 'the log has it');
      const retried = await w.store.webhooks.delivery(webhook.id, rows[0]?.messageId ?? '');
      assert.deepEqual([retried?.state, retried?.attempts, retried?.nextAt], ['retrying', 0, NOW + 2]);
      assert.equal((await w.store.webhooks.delivery(webhook.id, rows[1]?.messageId ?? ''))?.state, 'delivered');
      const after = await w.store.webhooks.get(webhook.id);
      assert.deepEqual([after?.pausedAt, after?.generation], [null, generation + 1]);
      assert.deepEqual(await w.store.webhooks.replaySince(999_999, NOW, NOW), new Map());
    });

    it('pausing makes open deliveries dead; resuming changes none', async () => {
      const webhook = await w.held(['orders']);
      const [a, b, c] = await w.write('orders', 3);
      assert.ok(a && b && c);
      const rows = [
        delivery(webhook.id, 'orders', a, 'retrying'),
        delivery(webhook.id, 'orders', b, 'waiting'),
        delivery(webhook.id, 'orders', c, 'delivered'),
      ];
      await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, new Map(), rows);
      const paused = await w.store.webhooks.pause(webhook.id, 'failing for an hour', NOW + 3);
      assert.deepEqual([paused?.pausedAt, paused?.pauseReason], [NOW + 3, 'failing for an hour']);
      const states = async () => (await w.store.webhooks.deliveries(webhook.id, { limit: 9 })).map((one) => one.state);
      assert.deepEqual(await states(), ['delivered', 'dead', 'dead']);
      assert.deepEqual(await w.store.webhooks.open(webhook.id), []);
      const resumed = await w.store.webhooks.pause(webhook.id, null, NOW + 4);
      assert.deepEqual([resumed?.pausedAt, resumed?.pauseReason], [null, null]);
      assert.equal(resumed?.generation, (paused?.generation ?? 0) + 1);
      assert.deepEqual(await states(), ['delivered', 'dead', 'dead']);
      assert.equal(await w.store.webhooks.pause(999_999, null, NOW), undefined);
    });

    it('trims to the newest delivered and the recent dead letters; remove forgets everything', async () => {
      const webhook = await w.held(['orders']);
      const changes = await w.write('orders', 5);
      const rows = changes.map((change, n) =>
        delivery(webhook.id, 'orders', change, n < 4 ? 'delivered' : 'dead', NOW - 100 + n),
      );
      await w.store.webhooks.settle(webhook.id, 'a', webhook.generation, new Map([['orders', 1]]), rows);
      assert.ok((await w.store.webhooks.trim(2, NOW - 100 + 4)) >= 2);
      const kept = await w.store.webhooks.deliveries(webhook.id, { limit: 9 });
      assert.deepEqual(
        kept.map((one) => one.messageId),
        [rows[4], rows[3], rows[2]].map((one) => one?.messageId),
      );
      await w.store.webhooks.trim(2, NOW - 100 + 5);
      assert.equal((await w.store.webhooks.deliveries(webhook.id, { limit: 9 })).length, 2, 'the dead letter too');
      assert.equal(await w.store.webhooks.remove(webhook.id), true);
      assert.equal(await w.store.webhooks.remove(webhook.id), false);
      assert.equal(await w.store.webhooks.get(webhook.id), undefined);
      assert.equal((await w.store.webhooks.positions(webhook.id)).size, 0);
      assert.deepEqual(await w.store.webhooks.deliveries(webhook.id, { limit: 9 }), []);
    });
  });
}
