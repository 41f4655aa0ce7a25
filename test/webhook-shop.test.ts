/**
 * The shop's other services hear of orders as they are placed: a receiver that verifies
 * signatures with the standardwebhooks library gets each placed order (a filter keeps others
 * out), and a webhook on the accounts never carries a password. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { useApp } from './helpers/app.js';
import { authorization } from './helpers/keys.js';
import { openShop, send, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS } from './helpers/stores.js';
import { type Receiver, startReceiver } from './helpers/verifying-receiver.js';

for (const kind of STORE_KINDS) {
  describe(`webhooks of the shop (${kind.name})`, () => {
    const ctx = useApp(kind, shopSettings({ webhooksAllowPrivate: true }));
    let orders: Receiver;
    let accounts: Receiver;
    before(async () => {
      orders = await startReceiver();
      accounts = await startReceiver();
      for (const [receiver, spec] of [
        [orders, { collections: ['orders'], events: ['created', 'updated'], filter: "status = 'placed'" }],
        [accounts, { collections: ['users'] }],
      ] as const) {
        const made = await ctx.app.inject({
          method: 'POST',
          url: '/webhooks/',
          headers: { 'content-type': 'application/json', ...authorization('write') },
          payload: { url: receiver.url, ...spec },
        });
        assert.equal(made.statusCode, 201, made.body);
        receiver.secret = (JSON.parse(made.body) as { secret: string }).secret;
      }
    });
    after(async () => {
      await orders?.close();
      await accounts?.close();
    });

    it('sends each order as it is placed, signed, and never one cancelled', async () => {
      const shop = await openShop(ctx.app);
      const cancelled = await send(ctx.app, shop, 'ada', {
        method: 'POST',
        url: '/order/',
        payload: { items: [{ productId: shop.productId, quantity: 2 }], status: 'cancelled' },
      });
      assert.equal(cancelled.statusCode, 201, cancelled.body);
      const placed = Object.values(shop.orders);
      await orders.until(() => placed.every((id) => orders.accepted.some((d) => d.payload.data.id === id)));
      assert.ok(orders.received.every((delivery) => delivery.verified));
      const types = orders.accepted.map((delivery) => delivery.payload.type);
      assert.deepEqual(new Set(types), new Set(['orders.created']));
      assert.ok(orders.accepted.every((delivery) => delivery.payload.data.status === 'placed'));
      const ada = orders.accepted.find((delivery) => delivery.payload.data.id === shop.orders.ada);
      assert.equal(ada?.payload.data.userId, shop.people.ada.id);
    });

    it('never sends an account’s password', async () => {
      await accounts.until(() => accounts.accepted.length >= 3);
      assert.ok(accounts.received.every((delivery) => delivery.verified));
      for (const delivery of accounts.received) assert.doesNotMatch(delivery.body, /password|scrypt|argon/i);
    });
  });
}
