/**
 * A server killed (SIGKILL) while it delivers a webhook under a load of writes, then started
 * again on the same database: once its lease has ended, the new process takes the webhook
 * over from the place last settled, with the failed deliveries it had kept for retrying.
 * Every change the log holds (every acknowledged write among them) reaches the receiver at
 * least once; a change sent again comes with the same webhook-id and the same body; each
 * record's changes first arrive, and are first accepted, in their order; nothing of a batch
 * that was rolled back ever arrives; every signature verifies. Real processes, a real
 * receiver, both stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeProducts } from './helpers/product-writes.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';
import { startReceiver } from './helpers/verifying-receiver.js';
import {
  allDelivered,
  checkDeliveries,
  failingAtFirst,
  midDelivery,
  more,
  productChanges,
  productsWebhook,
  quietOf,
  slowly,
  webhookEnv,
} from './helpers/webhook-cluster.js';

/** Deliveries accepted before the kill: enough that places have been settled past some of them. */
const BEFORE_KILL = 150;
/** Changes written and not yet delivered, at any time before the kill: more than a lane takes ahead. */
const BACKLOG = 100;

for (const kind of STORE_KINDS) {
  describe(`a server delivering webhooks, killed under writes (${kind.name})`, () => {
    it('sends every committed change after the restart, the same each time, in order, and nothing rolled back', async (t) => {
      const db = await kind.create();
      const receiver = await startReceiver(slowly);
      let server: RunningServer | undefined;
      let again: RunningServer | undefined;
      try {
        // Two deliveries at a time: a lane then takes 32 changes ahead of its place, and the hub reads the rest later.
        const env = { ...webhookEnv(db.url, productsWebhook(receiver)), WEBHOOKS_IN_FLIGHT_PER_WEBHOOK: '2' };
        server = await startServer(env);
        const first = server;
        let killed = false;
        const writes = writeProducts(() => (killed ? [] : [first]));
        // Each delivery is answered once the writes are BACKLOG ahead of it: the kill leaves a backlog to catch up on.
        // Every seventh change fails at first: retried, with its record's next changes waiting behind it.
        const answer = failingAtFirst(7);
        receiver.answer = async (delivery) => {
          await writes.ahead(receiver.received.length + BACKLOG);
          return answer(delivery);
        };
        await more(receiver, BEFORE_KILL);
        await midDelivery(receiver, () => {
          killed = true;
          first.process.kill('SIGKILL');
        });
        await writes.stop();
        await first.stop();
        t.diagnostic(`at the kill: ${writes.acknowledged.length} writes, ${receiver.accepted.length} deliveries`);
        assert.ok(writes.acknowledged.length > BEFORE_KILL && writes.doomed.length > 0);

        // The new process takes over once the dead one's lease ends, with more writes coming.
        again = await startServer(env);
        const target = again;
        const after = writeProducts(() => [target], { clients: 2, from: 10_000, count: 100 });
        await after.done;
        const changes = await productChanges(db.url);
        await allDelivered(receiver, changes);
        const written = {
          acknowledged: [...writes.acknowledged, ...after.acknowledged],
          doomed: [...writes.doomed, ...after.doomed],
        };
        const repeats = checkDeliveries(receiver, changes, written);
        quietOf([first, again]);
        t.diagnostic(`${changes.length} changes, ${receiver.received.length} deliveries, ${repeats} accepted twice`);
      } finally {
        await again?.stop();
        await server?.stop('SIGKILL');
        await receiver.close();
        await db.drop();
      }
    });
  });
}
