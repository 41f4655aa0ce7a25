/**
 * The delivery engine's parts that decide without a network: a lane's place over settled
 * changes and its window, the open deliveries' order per record, the backoff's bounds and an
 * endpoint's hold. The whole engine runs against real receivers in webhook-delivery.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { backoffMs, EndpointHealth } from '../src/records/webhooks/endpoint-health.js';
import { OpenDeliveries } from '../src/records/webhooks/open-deliveries.js';
import { WebhookLane } from '../src/records/webhooks/webhook-lane.js';
import type { Change } from '../src/store/change-log-model.js';
import type { Delivery } from '../src/store/webhook-model.js';

const change = (seq: number, id = seq): Change => ({
  seq,
  kind: 'created',
  record: { id, data: '{}', version: 1, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' },
  loggedAt: '2026-01-01T00:00:00Z',
});

const row = (seq: number, recordId: number, state: Delivery['state'], nextAt: number | null = null): Delivery => ({
  webhookId: 1,
  messageId: `evt_products_${seq}`,
  collection: 'products',
  seq,
  recordId,
  type: 'products.created',
  body: '{}',
  state,
  attempts: state === 'waiting' ? 0 : 1,
  status: 500,
  error: 'HTTP 500',
  occurredAt: seq,
  firstAttemptAt: 0,
  lastAttemptAt: 0,
  nextAt,
});

function lane(window = 4, matches = (_: Change) => true) {
  const missed: [number, number][] = [];
  let taken = 0;
  const made = new WebhookLane('products', 10, window, matches, {
    taken: () => {
      taken += 1;
    },
    failed: () => {},
    missed: (from, to) => missed.push([from, to]),
  });
  return { lane: made, missed, taken: () => taken };
}

describe('a webhook lane', () => {
  it('moves its place only over the settled changes at its front', async () => {
    const { lane: l } = lane(10);
    await l.take([change(11), change(12), change(13)]);
    assert.equal(l.place, 10);
    (l.entries[1] as { settled: boolean }).settled = true;
    assert.equal(l.advance(), false);
    (l.entries[0] as { settled: boolean }).settled = true;
    assert.equal(l.advance(), true);
    assert.equal(l.place, 12);
  });

  it('settles at once what its events and filter do not send, and reports changes the log lost', async () => {
    const { lane: l, missed } = lane(10, (c) => c.seq % 2 === 0);
    await l.take([change(11), change(12), change(15)]);
    assert.deepEqual(missed, [[13, 14]]);
    assert.equal(l.place, 11);
    assert.deepEqual(
      l.entries.map((entry) => [entry.change.seq, entry.settled]),
      [
        [12, false],
        [15, true],
      ],
    );
  });

  it('is ready for more only while fewer than its window wait', async () => {
    const { lane: l } = lane(2);
    await l.take([change(11), change(12)]);
    let ready = false;
    const waiting = l.ready().then(() => {
      ready = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(ready, false);
    for (const entry of l.entries) entry.settled = true;
    l.advance();
    await waiting;
    assert.equal(l.place, 12);
  });
});

describe('a webhook lane given more than its window', () => {
  it('takes what fits, and the rest once room is made', async () => {
    const { lane: l } = lane(2);
    let done = false;
    const taking = l.take([change(11), change(12), change(13), change(14)]).then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(done, false);
    assert.equal(l.position, 12);
    for (const entry of l.entries) entry.settled = true;
    l.advance();
    await taking;
    assert.equal(l.position, 14);
    assert.ok(l.entries.length <= 2);
  });

  it('lets a waiting take end when the lane is released', async () => {
    const { lane: l } = lane(1);
    const taking = l.take([change(11), change(12)]);
    l.release();
    await taking;
    assert.equal(l.position, 11);
  });
});

describe('open deliveries', () => {
  it('retries one change per record, the later ones waiting behind it in change order', () => {
    const open = new OpenDeliveries([row(7, 1, 'waiting'), row(5, 1, 'retrying', 100), row(6, 2, 'retrying', 50)]);
    assert.equal(open.isBlocked('products/1'), true);
    assert.deepEqual(
      open.due(100).map((d) => d.seq),
      [6, 5],
    );
    assert.equal(open.nextDue(), 50);
    const [, head] = open.due(100);
    const next = open.settle(head as never, 200);
    assert.equal(next?.seq, 7);
    assert.equal(next?.state, 'retrying');
    assert.equal(next?.nextAt, 200);
    open.settle(next as never, 300);
    assert.equal(open.isBlocked('products/1'), false);
    assert.equal(open.size, 1);
  });
});

describe('backoff', () => {
  it('doubles from the first wait up to an hour, jittered to between half and all of it, in whole ms', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const ceiling = Math.min(1000 * 2 ** (n - 1), 3_600_000);
          const wait = backoffMs(n, 1000, () => r);
          return Number.isInteger(wait) && wait >= ceiling / 2 && wait <= ceiling;
        },
      ),
    );
  });

  it('holds a failing endpoint to one new change at a time, once its hold is over', () => {
    let now = 0;
    const health = new EndpointHealth(1000, () => now);
    assert.equal(health.mayStart(5), true);
    health.heard(false);
    assert.equal(health.mayStart(0), false);
    now = health.heldUntil ?? Number.NaN;
    assert.equal(health.mayStart(1), false);
    assert.equal(health.mayStart(0), true);
    health.heard(true);
    assert.equal(health.failing, false);
    assert.equal(health.lastSuccessAt, now);
  });
});
