/**
 * Webhooks' fixtures for tests of the store's part (test/webhook-*store.test.ts): specs, new
 * webhooks, kept deliveries of real changes, and a store to run them on. Times are a fixed clock's.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { setTimeout as pause } from 'node:timers/promises';
import { openStore } from '../../src/store/open-store.js';
import type { Change, Delivery, DeliveryState, Store, StoredWebhook, WebhookSpec } from '../../src/store/store.js';
import { catalogOf } from './catalog.js';
import type { TestDatabase, TestStoreKind } from './stores.js';

export const NOW = 1_800_000_000_000;
export const LEASE = 60_000;
export const spec = (collections: string[], url = 'https://example.com/hook'): WebhookSpec => ({
  url,
  collections,
  events: ['created', 'updated', 'deleted'],
  filter: null,
});
export const hook = (collections: string[], declaredAs?: string) => ({
  ...spec(collections),
  secret: 'whsec_a',
  ...(declaredAs && { declaredAs }),
});

/** A kept delivery of `change` of `collection`. */
export function delivery(
  webhookId: number,
  collection: string,
  change: Change,
  state: DeliveryState,
  at = NOW,
): Delivery {
  return {
    webhookId,
    messageId: `evt_${collection}_${change.seq}`,
    collection,
    seq: change.seq,
    recordId: change.record.id,
    type: `${collection}.${change.kind}`,
    occurredAt: Date.parse(change.loggedAt ?? ''),
    body: '{}',
    state,
    attempts: 1,
    status: state === 'delivered' ? 200 : 500,
    error: state === 'delivered' ? null : 'HTTP 500',
    firstAttemptAt: at,
    lastAttemptAt: at,
    nextAt: state === 'retrying' ? at + 1000 : null,
  };
}

/**
 * A store of `kind` for one suite (opened before its tests, dropped after), with what its
 * tests do to it: write records and read their changes, wait for the clock, lease a webhook.
 */
export function webhookStore(kind: TestStoreKind) {
  let db: TestDatabase;
  let opened: Store;
  before(async () => {
    db = await kind.create();
    opened = await openStore(db.url, catalogOf(['orders', 'items', 'notes']));
  });
  after(async () => {
    await opened?.close();
    await db?.drop();
  });
  return {
    get store() {
      return opened;
    },
    /** Writes `n` records of `collection`; resolves with their changes, numbered. */
    async write(collection: string, n: number): Promise<Change[]> {
      const { last } = await opened.changes.bounds(collection);
      for (let i = 0; i < n; i++) await opened.collection(collection).create(JSON.stringify({ n: i }));
      await opened.changes.bounds(collection);
      return opened.changes.read(collection, last);
    },
    /** Resolves once the clock is past `change`'s time, so that later changes are logged later. */
    async past(change: Change): Promise<void> {
      while (Date.now() <= Date.parse(change.loggedAt ?? '')) await pause(1);
    },
    /** The counter of `collection`'s log: its last change. */
    counter: async (collection: string) => (await opened.changes.bounds(collection)).last,
    /** A new webhook of `collections`, leased by owner 'a'. */
    async held(collections: string[]): Promise<StoredWebhook> {
      const webhook = await opened.webhooks.create(hook(collections), NOW);
      const leased = await opened.webhooks.lease(webhook.id, 'a', NOW, LEASE);
      assert.ok(leased);
      return leased;
    },
  };
}
