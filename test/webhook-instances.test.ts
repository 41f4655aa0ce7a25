/**
 * Several instances on one PostgreSQL database, one webhook, writes spread across all of
 * them: one instance at a time delivers it (the receiver never gets a message while the
 * same message is still being answered), and each change arrives at least once, in each
 * record's order. The instance holding the webhook's lease is killed (SIGKILL) in the middle
 * of a delivery, then the one that took over, until one is left: once the dead holder's
 * lease ends another takes over from the settled place and nothing committed is lost. An
 * instance stopped (SIGTERM) gives its lease up as it goes, after settling what it sent:
 * another takes over and nothing is sent twice. Real processes, a real receiver.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Writes, writeProducts } from './helpers/product-writes.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { POSTGRES_AVAILABLE, postgresKind, type TestDatabase } from './helpers/stores.js';
import { type Receiver, startReceiver } from './helpers/verifying-receiver.js';
import {
  allDelivered,
  checkDeliveries,
  failingAtFirst,
  holderOf,
  midDelivery,
  more,
  productChanges,
  productsWebhook,
  quietOf,
  webhookEnv,
} from './helpers/webhook-cluster.js';

/** Deliveries that show the webhook is being delivered (by whichever instance holds it). */
const FLOWING = 60;

interface Cluster {
  db: TestDatabase;
  receiver: Receiver;
  servers: RunningServer[];
  /** The instances still running, which the writes go through. */
  live: RunningServer[];
  writes: Writes;
}

/** `count` instances on a new database, a webhook of products to a slow receiver, and writes through every instance. */
async function cluster(count: number, leaseSeconds?: number): Promise<Cluster> {
  const db = await postgresKind.create();
  const receiver = await startReceiver(failingAtFirst(7));
  const env = webhookEnv(db.url, productsWebhook(receiver), leaseSeconds);
  // All at once, as an orchestrator starts them: each declares the file's webhook, which is made once.
  const servers = await Promise.all(Array.from({ length: count }, () => startServer(env)));
  const live = [...servers];
  return { db, receiver, servers, live, writes: writeProducts(() => live, { count: 100_000 }) };
}

async function close({ db, receiver, servers, writes }: Cluster): Promise<void> {
  await writes.stop().catch(() => {});
  await Promise.all(servers.map((server) => server.stop('SIGKILL')));
  await receiver.close();
  await db.drop();
}

/** Once deliveries flow, the instance delivering them. */
async function holder({ db, receiver, live }: Cluster): Promise<RunningServer> {
  await more(receiver, FLOWING);
  const found = await holderOf(db.url, live);
  assert.ok(found, 'a running instance holds the webhook');
  return found;
}

/** Stops writing, then waits for every change the log holds; checks what came; resolves with how many were accepted twice. */
async function settled(context: Cluster): Promise<number> {
  const { db, receiver, writes } = context;
  await writes.stop();
  const changes = await productChanges(db.url);
  await allDelivered(receiver, changes);
  assert.deepEqual(receiver.overlaps, [], 'no message arrived while the same one was being answered');
  quietOf(context.servers);
  return checkDeliveries(receiver, changes, writes);
}

const postgres = { skip: !POSTGRES_AVAILABLE && 'PostgreSQL is not available' };

describe('instances delivering one webhook on one PostgreSQL', postgres, () => {
  for (const count of [2, 3]) {
    it(`${count} instances: one delivers at a time; each holder killed in turn loses nothing`, async (t) => {
      const context = await cluster(count);
      try {
        const { receiver, live } = context;
        for (let round = 1; round < count; round++) {
          const killed = await holder(context);
          await midDelivery(receiver, () => {
            live.splice(live.indexOf(killed), 1);
            killed.process.kill('SIGKILL');
          });
        }
        // The last one standing took over (deliveries flow again), while the writes went on.
        const last = await holder(context);
        assert.deepEqual(live, [last]);
        const repeats = await settled(context);
        t.diagnostic(`${receiver.received.length} deliveries, ${repeats} accepted twice`);
      } finally {
        await close(context);
      }
    });
  }

  it('a holder stopped with SIGTERM gives its lease up: another takes over, and nothing is sent twice', async () => {
    // A long lease: were it not given up, the other instance would wait it out.
    const context = await cluster(2, 30);
    try {
      const { db, receiver, live } = context;
      const stopped = await holder(context);
      let exited: Promise<number | null> | undefined;
      await midDelivery(receiver, () => {
        live.splice(live.indexOf(stopped), 1);
        exited = stopped.stop('SIGTERM');
      });
      assert.equal(await exited, 0);
      assert.equal(await holderOf(db.url, [stopped]), undefined, 'the lease was given up');
      assert.deepEqual([await holder(context)], live);
      assert.equal(await settled(context), 0, 'no delivery accepted twice');
    } finally {
      await close(context);
    }
  });
});
