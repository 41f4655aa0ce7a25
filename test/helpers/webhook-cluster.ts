/**
 * Webhooks delivered by real server processes (test/webhook-crash.test.ts,
 * test/webhook-instances.test.ts): the settings they run with, the webhook they deliver,
 * which of them holds it, waits on what the receiver gets (./verifying-receiver.ts), and
 * what it must have got once the change log is read: every committed change, at least
 * once, the same each time it came, in each record's order, and nothing that never
 * committed (the writes come from ./product-writes.ts).
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import pg from 'pg';
import { defaultConfig } from '../../src/config/index.js';
import { loadCatalog } from '../../src/core/load-catalog.js';
import { newWebhookSecret } from '../../src/records/webhooks/webhook-secret.js';
import { openStore } from '../../src/store/open-store.js';
import type { Change } from '../../src/store/store.js';
import type { Written } from './product-writes.js';
import type { RunningServer } from './server.js';
import type { Answer, Received, Receiver } from './verifying-receiver.js';
import { webhooksFile } from './webhook-api.js';

/**
 * A short lease, so that a dead holder is taken over in seconds. A delivery starts only
 * while the lease has more than the timeout and a second left, and renewals come every
 * quarter of it: with a timeout of 1 s, that always holds between renewals.
 */
export const LEASE_SECONDS = 3;

/** The settings of a server delivering webhooks to receivers on 127.0.0.1, quickly retried. */
export function webhookEnv(databaseUrl: string, webhooks: string, leaseSeconds = LEASE_SECONDS) {
  return {
    DATABASE_URL: databaseUrl,
    WEBHOOKS: webhooks,
    RATE_LIMIT_MAX: '0',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    WEBHOOKS_LEASE_SECONDS: String(leaseSeconds),
    WEBHOOKS_TIMEOUT_SECONDS: '1',
    WEBHOOKS_BACKOFF_SECONDS: '0.05',
  };
}

/**
 * A WEBHOOKS file declaring one webhook of products to `receiver` (whose secret it sets),
 * as every instance is given it: the first start makes the webhook, at the log's end then.
 */
export function productsWebhook(receiver: Receiver): string {
  receiver.secret = newWebhookSecret();
  return webhooksFile([{ name: 'products', url: receiver.url, collections: ['products'], secret: receiver.secret }]);
}

/** Every change of products the log holds now (the databases are new: all since the webhook was made). */
export async function productChanges(databaseUrl: string): Promise<Change[]> {
  const store = await openStore(databaseUrl, loadCatalog(defaultConfig()));
  try {
    const changes: Change[] = [];
    for (let read = await store.changes.read('products', 0); read.length > 0; ) {
      changes.push(...read);
      read = await store.changes.read('products', (read.at(-1) as Change).seq);
    }
    return changes;
  } finally {
    await store.close();
  }
}

/** The server whose process holds the webhook's lease now (its owner names its pid), if one of `servers` does. */
export async function holderOf(
  databaseUrl: string,
  servers: readonly RunningServer[],
): Promise<RunningServer | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ lease_owner: string | null }>('SELECT lease_owner FROM webhooks');
    const pid = Number(rows[0]?.lease_owner?.split(':').at(-2));
    return servers.find((server) => server.process.pid === pid);
  } finally {
    await client.end();
  }
}

/**
 * An answer that fails (500) the first attempt of every `every`th change, so that it is
 * retried and its record's next changes wait behind it; the others are answered `slowly`.
 */
export function failingAtFirst(every: number): Answer {
  const failed = new Set<string>();
  return (delivery) => {
    if (failed.has(delivery.id) || Number(delivery.id.split('_').at(-1)) % every !== 0) return slowly();
    failed.add(delivery.id);
    return 500;
  };
}

/** A receiver's answer that takes a few turns of the event loop, so that deliveries are under way for a while. */
export async function slowly(): Promise<number> {
  for (let turn = 0; turn < 5; turn++) await nextTurn();
  return 204;
}

/**
 * Resolves once `condition` holds, looked at after each delivery `receiver` answers. The
 * time is a guard only, so that a delivery that never comes fails the test, saying `what`.
 */
export async function until(receiver: Receiver, condition: () => boolean, what: () => string, ms = 60_000) {
  let guard: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error(`never: ${what()}`)), ms);
  });
  try {
    await Promise.race([receiver.until(condition), late]);
  } finally {
    clearTimeout(guard);
  }
}

/** Resolves once `receiver` has accepted `more` deliveries beyond those it has now. */
export function more(receiver: Receiver, count: number): Promise<void> {
  const target = receiver.accepted.length + count;
  return until(
    receiver,
    () => receiver.accepted.length >= target,
    () => `${count} more deliveries`,
  );
}

/** Resolves once `receiver` accepted every change of `changes`. */
export function allDelivered(receiver: Receiver, changes: readonly Change[]): Promise<void> {
  const missing = () => {
    const accepted = new Set(receiver.accepted.map((got) => got.id));
    return changes.filter((change) => !accepted.has(messageIdOf(change)));
  };
  return until(
    receiver,
    () => missing().length === 0,
    () => `delivered: ${missing().length} of ${changes.length} missing (${missing().slice(0, 20).map(messageIdOf)}…)`,
  );
}

/** Calls `act` as the next delivery arrives, and resolves once it has: whatever it ends, a delivery is under way. */
export async function midDelivery(receiver: Receiver, act: () => void): Promise<void> {
  let done = false;
  const answer = receiver.answer;
  receiver.answer = (delivery) => {
    if (!done) {
      done = true;
      act();
    }
    return answer(delivery);
  };
  await until(
    receiver,
    () => done,
    () => 'a delivery to act in',
  );
  receiver.answer = answer;
}

export const messageIdOf = (change: Change) => `evt_products_${change.seq}`;

/**
 * What `receiver` got against the log's `changes` and the load's `writes`: every delivery
 * signed, of a change the log holds, as that change says; a message sent twice the same both
 * times; each record's changes first arriving, and first accepted, in their order; every
 * acknowledged write in the log; nothing of a refused batch anywhere. Resolves with how many
 * accepted deliveries repeated one accepted before.
 */
export function checkDeliveries(receiver: Receiver, changes: readonly Change[], writes: Written): number {
  const bySeq = new Map(changes.map((change) => [messageIdOf(change), change]));
  const logged = new Set(changes.map((change) => `${change.record.id}@${change.record.version}`));
  for (const { id, version } of writes.acknowledged) assert.ok(logged.has(`${id}@${version}`), `${id}@${version}`);
  const first = new Map<string, string>();
  for (const got of receiver.received) {
    assert.ok(got.verified, `${got.id}: its signature verifies`);
    for (const mark of writes.doomed) assert.ok(!got.body.includes(mark), `${got.id}: nothing of ${mark} arrives`);
    const change = bySeq.get(got.id);
    assert.ok(change, `${got.id} is a change the log holds`);
    const before = first.get(got.id);
    if (before !== undefined) {
      assert.equal(got.body, before, `${got.id}: the same body each time`);
      continue;
    }
    first.set(got.id, got.body);
    assert.equal(got.payload.type, `products.${change.kind}`);
    const { id, data, createdAt, updatedAt } = change.record;
    assert.deepEqual(got.payload.data, { id, ...JSON.parse(data), createdAt, updatedAt }, `${got.id}: its record`);
  }
  inRecordOrder(receiver.received, bySeq, 'arrived');
  inRecordOrder(receiver.accepted, bySeq, 'accepted');
  return receiver.accepted.length - new Set(receiver.accepted.map((got) => got.id)).size;
}

/** Asserts that none of `servers` warned of its webhooks (a settle the store refused, a lease not taken…). */
export function quietOf(servers: readonly RunningServer[]): void {
  for (const server of servers) {
    const warnings = server.output.filter((line) => /"level":[4-6]\d/.test(line) && /webhook/i.test(line));
    assert.equal(warnings.length, 0, `server ${server.process.pid} warned: ${warnings[0]?.slice(0, 400)}`);
  }
}

/** Asserts that the first of each message among `deliveries` come in each record's change order. */
function inRecordOrder(deliveries: readonly Received[], bySeq: ReadonlyMap<string, Change>, what: string): void {
  const seen = new Set<string>();
  const lastSeq = new Map<number, number>();
  for (const { id } of deliveries) {
    const change = bySeq.get(id);
    if (seen.has(id) || !change) continue;
    seen.add(id);
    const previous = lastSeq.get(change.record.id) ?? 0;
    assert.ok(
      previous < change.seq,
      `record ${change.record.id}: change ${change.seq} first ${what} after ${previous}`,
    );
    lastSeq.set(change.record.id, change.seq);
  }
}
