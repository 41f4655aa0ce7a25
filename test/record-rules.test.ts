/**
 * Record rules over real HTTP, on every store, with the example shop: each operation on an
 * order by each kind of caller (no one, its owner, another shopper, staff, a read key, a
 * write key), on the wire and tunnelled; then every other way one shopper might reach
 * another's records: a filter, a search, a count, an expansion, a feed, an
 * `Idempotency-Key` replay. Nothing may leak.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { openStore } from '../src/store/open-store.js';
import { body, useApp } from './helpers/app.js';
import { openEventStream } from './helpers/event-stream.js';
import { headersOf, openShop, type Sender, type Shop, send, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS } from './helpers/stores.js';
import { sign, storeKey } from './helpers/tokens.js';

const SENDERS: readonly Sender[] = ['anonymous', 'ada', 'bob', 'sam', 'read', 'write'];
type Case = { method: 'PUT' | 'DELETE'; tunnelled: boolean };
const WRITES: readonly Case[] = [
  { method: 'PUT', tunnelled: false },
  { method: 'PUT', tunnelled: true },
  { method: 'DELETE', tunnelled: false },
  { method: 'DELETE', tunnelled: true },
];

/**
 * A reviews collection anyone may read, whose records name users: for expansions; and notes,
 * whose owner is optional, each its owner's alone unless public.
 */
function shopWithReviews(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-rules-'));
  cpSync('schemas/shop', dir, { recursive: true });
  const reviews = {
    type: 'object',
    required: ['userId', 'text'],
    properties: { userId: { type: 'integer', 'x-ref': 'users' }, text: { type: 'string' } },
    'x-rules': { list: 'true', view: 'true' },
  };
  writeFileSync(join(dir, 'reviews.schema.json'), JSON.stringify(reviews));
  const mine = 'userId == auth.id';
  const notes = {
    type: 'object',
    properties: { userId: { type: ['integer', 'null'] }, text: { type: 'string' }, public: { type: 'boolean' } },
    'x-rules': { list: `${mine} || public`, view: `${mine} || public`, update: mine, delete: mine },
  };
  writeFileSync(join(dir, 'notes.schema.json'), JSON.stringify(notes));
  return dir;
}

for (const kind of STORE_KINDS) {
  describe(`record rules on orders (${kind.name})`, () => {
    const schemas = shopWithReviews();
    after(() => rmSync(schemas, { recursive: true, force: true }));
    const ctx = useApp(kind, shopSettings({ schemas }));
    let shop: Shop;
    let origin = '';
    before(async () => {
      shop = await openShop(ctx.app);
      origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    });
    const as = (sender: Sender, options: Parameters<typeof send>[3]) => send(ctx.app, shop, sender, options);
    /** A new order of Ada's, made with the write key. */
    const adasOrder = async () => {
      const made = await as('write', {
        method: 'POST',
        url: '/order/',
        payload: { userId: shop.people.ada.id, items: [{ productId: shop.productId, quantity: 2 }], status: 'placed' },
      });
      assert.equal(made.statusCode, 201, made.body);
      return body(made).id as number;
    };

    it('lists to each caller only what its rule lets it see', async () => {
      const expected: Record<Sender, number[]> = {
        anonymous: [],
        ada: [shop.orders.ada],
        bob: [shop.orders.bob],
        sam: [shop.orders.ada, shop.orders.bob],
        read: [shop.orders.ada, shop.orders.bob],
        write: [shop.orders.ada, shop.orders.bob],
      };
      for (const sender of SENDERS) {
        const listed = await as(sender, { method: 'GET', url: '/orders/', headers: { prefer: 'count=exact' } });
        assert.equal(listed.statusCode, 200, sender);
        const ids = body<{ id: number }[]>(listed).map((order) => order.id);
        assert.deepEqual(ids, expected[sender], sender);
        assert.equal(listed.headers['x-total-count'], String(expected[sender].length), sender);
      }
    });

    it("reads Ada's order by id for her, staff and keys, and answers 404 to anyone else", async () => {
      const expected: Record<Sender, number> = { anonymous: 404, ada: 200, bob: 404, sam: 200, read: 200, write: 200 };
      for (const sender of SENDERS) {
        const read = await as(sender, { method: 'GET', url: `/order/${shop.orders.ada}/` });
        assert.equal(read.statusCode, expected[sender], `${sender}: ${read.body}`);
      }
    });

    it('lets a signed-in shopper order (as themself, whatever the body says), a write key, and no one else', async () => {
      const order = {
        userId: shop.people.bob.id,
        items: [{ productId: shop.productId, quantity: 1 }],
        status: 'placed',
      };
      const expected: Record<Sender, number> = { anonymous: 403, ada: 201, bob: 201, sam: 201, read: 403, write: 201 };
      for (const sender of SENDERS) {
        const made = await as(sender, { method: 'POST', url: '/order/', payload: order });
        assert.equal(made.statusCode, expected[sender], `${sender}: ${made.body}`);
        if (sender === 'ada' || sender === 'sam') assert.equal(body(made).userId, shop.people[sender].id);
        if (sender === 'write') assert.equal(body(made).userId, shop.people.bob.id);
      }
      const bulk = [order, order];
      const asAda = await as('ada', { method: 'POST', url: '/order/', payload: bulk });
      assert.equal(asAda.statusCode, 201, asAda.body);
      assert.deepEqual(
        body<{ userId: number }[]>(asAda).map((made) => made.userId),
        [shop.people.ada.id, shop.people.ada.id],
      );
      const asNoOne = await as('anonymous', { method: 'POST', url: '/order/', payload: bulk });
      assert.equal(asNoOne.statusCode, 403);
    });

    for (const { method, tunnelled } of WRITES) {
      const how = tunnelled ? `${method} tunnelled through POST` : method;
      it(`lets only staff and the write key ${how} Ada's order: 404 to whoever may not see it, 403 to her`, async () => {
        const expected: Record<Sender, number> = {
          anonymous: 404,
          ada: 403,
          bob: 404,
          read: 403,
          sam: 200,
          write: 200,
        };
        for (const sender of SENDERS) {
          const id = await adasOrder();
          const sent = await as(sender, {
            method: tunnelled ? 'POST' : method,
            url: `/order/${id}/`,
            ...(tunnelled && { headers: { 'HTTP-X-HTTP-METHOD': method } }),
            ...(method === 'PUT' && { payload: { status: 'paid' } }),
          });
          assert.equal(sent.statusCode, expected[sender], `${sender}: ${sent.body}`);
          const after = await as('write', { method: 'GET', url: `/order/${id}/` });
          const changed = expected[sender] === 200;
          if (method === 'DELETE') assert.equal(after.statusCode, changed ? 404 : 200, sender);
          else assert.equal(body(after).status, changed ? 'paid' : 'placed', sender);
        }
      });
    }

    it("never lets an account move an order to someone else (x-owner), even staff's", async () => {
      const id = await adasOrder();
      const moved = await as('sam', { method: 'PUT', url: `/order/${id}/`, payload: { userId: shop.people.bob.id } });
      assert.equal(moved.statusCode, 403);
      const byKey = await as('write', { method: 'PUT', url: `/order/${id}/`, payload: { userId: shop.people.bob.id } });
      assert.equal(byKey.statusCode, 200);
    });

    it("shows Bob nothing of Ada's by filter, search, count or sort", async () => {
      const bob = shop.people.bob.id;
      for (const [url, owner] of [
        [`/orders/?userId=${shop.people.ada.id}`, 'userId'],
        ['/orders/?q=placed&userId[ne]=0', 'userId'],
        [`/orders/?id=${shop.orders.ada}`, 'userId'],
        ['/users/?q=ada', 'id'],
        ['/users/?email=ada@example.com', 'id'],
        ['/users/?sort=-name', 'id'],
      ] as const) {
        const listed = await as('bob', { method: 'GET', url, headers: { prefer: 'count=exact' } });
        assert.equal(listed.statusCode, 200, url);
        const records = body<Record<string, unknown>[]>(listed);
        assert.ok(
          records.every((record) => record[owner] === bob),
          `${url}: ${listed.body}`,
        );
        assert.equal(listed.headers['x-total-count'], String(records.length), url);
      }
      const users = await as('bob', { method: 'GET', url: '/users/', headers: { prefer: 'count=exact' } });
      assert.deepEqual(
        body<{ id: number }[]>(users).map((user) => user.id),
        [bob],
      );
    });

    it('embeds only records the caller may view: another account is null', async () => {
      const review = await as('write', {
        method: 'POST',
        url: '/review/',
        payload: { userId: shop.people.ada.id, text: 'Pours well.' },
      });
      assert.equal(review.statusCode, 201);
      const id = body(review).id as number;
      const forBob = await as('bob', { method: 'GET', url: `/review/${id}/?expand=userId` });
      assert.equal(forBob.statusCode, 200);
      assert.deepEqual(body(forBob).expand, { userId: null });
      const listed = await as('anonymous', { method: 'GET', url: '/reviews/?expand=userId' });
      assert.deepEqual(body<{ expand: unknown }[]>(listed)[0]?.expand, { userId: null });
      const forAda = await as('ada', { method: 'GET', url: `/review/${id}/?expand=userId` });
      assert.equal((body(forAda).expand as { userId: { email: string } }).userId.email, 'ada@example.com');
    });

    it("replays an Idempotency-Key only to the account that sent it, never another's record", async () => {
      const payload = { items: [{ productId: shop.productId, quantity: 3 }], status: 'placed' };
      const headers = { 'idempotency-key': 'shared-key-1' };
      const first = await as('ada', { method: 'POST', url: '/order/', headers, payload });
      const again = await as('ada', { method: 'POST', url: '/order/', headers, payload });
      const other = await as('bob', { method: 'POST', url: '/order/', headers, payload });
      assert.equal(first.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(body(again).id, body(first).id);
      assert.equal(other.statusCode, 201);
      assert.equal(other.headers['idempotent-replayed'], undefined);
      assert.equal(body(other).userId, shop.people.bob.id);
    });

    it('sends each feed only the changes its caller may list, and a change out of view as a delete', async () => {
      const bobs = await openEventStream(`${origin}/orders/events/?access_token=${shop.people.bob.token}`);
      const anyone = await openEventStream(`${origin}/orders/events/`);
      try {
        assert.equal(bobs.status, 200);
        await adasOrder();
        const bobsOwn = await as('bob', {
          method: 'POST',
          url: '/order/',
          payload: { items: [{ productId: shop.productId, quantity: 5 }], status: 'placed' },
        });
        const id = body(bobsOwn).id as number;
        await as('write', { method: 'PUT', url: `/order/${id}/`, payload: { userId: shop.people.ada.id } });
        const [created, left] = await bobs.take(2);
        assert.equal(created?.event, 'created');
        assert.equal(JSON.parse(created?.data ?? '{}').id, id);
        assert.equal(left?.event, 'deleted');
        assert.equal(JSON.parse(left?.data ?? '{}').userId, shop.people.bob.id, 'as Bob last saw it');
        assert.deepEqual(anyone.pending(), []);
      } finally {
        await bobs.close();
        await anyone.close();
      }
    });

    it('ends a feed when the token it was opened with expires', async () => {
      const store = await openStore(ctx.db.url, loadCatalog(defaultConfig({ schemas })));
      try {
        const key = await storeKey(store.accounts);
        const now = Math.floor(Date.now() / 1000);
        const claims = { sub: String(shop.people.ada.id), collection: 'users', iss: 'restock', iat: now, exp: now + 2 };
        const token = await sign(claims, { alg: 'ES256', kid: key.kid }, key.privateKey);
        const feed = await openEventStream(`${origin}/orders/events/?access_token=${token}`);
        assert.equal(feed.status, 200);
        await assert.rejects(feed.take(1), /the stream ended/);
      } finally {
        await store.close();
      }
    });

    it('gives no one without credentials a record without an owner: userId == auth.id holds for no one', async () => {
      const note = async (fields: Record<string, unknown>) => {
        const made = await as('write', { method: 'POST', url: '/note/', payload: fields });
        assert.equal(made.statusCode, 201, made.body);
        return body(made).id as number;
      };
      const anyone = await openEventStream(`${origin}/notes/events/`);
      try {
        const ownerless = await note({ text: 'no one' });
        const nulled = await note({ text: 'null', userId: null });
        const shown = await note({ text: 'for all', public: true });
        const [first] = await anyone.take(1);
        assert.equal(JSON.parse(first?.data ?? '{}').id, shown, 'the feed skips notes without an owner');
        const listed = await as('anonymous', { method: 'GET', url: '/notes/', headers: { prefer: 'count=exact' } });
        assert.deepEqual(
          body<{ id: number }[]>(listed).map((listedNote) => listedNote.id),
          [shown],
        );
        assert.equal(listed.headers['x-total-count'], '1');
        for (const id of [ownerless, nulled]) {
          for (const [method, payload] of [['GET'], ['PUT', { text: 'mine now' }], ['DELETE']] as const) {
            const sent = await as('anonymous', { method, url: `/note/${id}/`, ...(payload && { payload }) });
            assert.equal(sent.statusCode, 404, `${method} ${id}: ${sent.body}`);
          }
          const kept = await as('write', { method: 'GET', url: `/note/${id}/` });
          assert.notEqual(body(kept).text, 'mine now');
        }
        // An account's own note is still its own.
        const adas = await note({ text: 'Ada', userId: shop.people.ada.id });
        assert.equal(
          (await as('ada', { method: 'PUT', url: `/note/${adas}/`, payload: { text: 'A.' } })).statusCode,
          200,
        );
      } finally {
        await anyone.close();
      }
    });

    it('answers 401 to a token that is not one, and to a changed one', async () => {
      const token = shop.people.ada.token;
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, sub: String(shop.people.bob.id) })).toString('base64url');
      const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      for (const bad of [`${header}.${forged}.${signature}`, `${none}.${payload}.`, `${token}x`]) {
        const read = await ctx.app.inject({ url: '/orders/', headers: { authorization: `Bearer ${bad}` } });
        assert.equal(read.statusCode, 401, bad);
      }
      assert.equal((await as('ada', { method: 'GET', url: '/orders/' })).statusCode, 200);
      assert.deepEqual(headersOf(shop, 'anonymous'), {});
    });
  });
}
