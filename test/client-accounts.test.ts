/**
 * The client signed in to the example shop (schemas/shop, with its accounts and rules),
 * against a real restock on a port, on both stores: its token on every request and feed,
 * renewed by its clock before it expires and after a 401 (once for requests at the same
 * time), a failed renewal signing out, and a sign-out that revokes the refresh token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  type ChangeEvent,
  type Client,
  createClient,
  ProblemError,
  type Session,
} from '../packages/client/src/index.js';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { WRITE_KEY } from './helpers/keys.js';
import { PASSWORDS, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

interface User {
  name: string;
  email: string;
  password?: string;
  role?: 'customer' | 'staff';
}
interface Order {
  userId?: number;
  items: { productId: number; quantity: number }[];
  status: string;
}
type Shop = { users: User; orders: Order; products: { name: string; price?: number } };

/** A fetch that records each request as `METHOD path` (with the override, and `+token` when one was sent). */
function recordingFetch(sent: string[]): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    const override = headers.get('HTTP-X-HTTP-METHOD');
    const bearer = headers.get('authorization') ? ' +token' : '';
    sent.push(`${init?.method}${override ? ` as ${override}` : ''} ${new URL(String(input)).pathname}${bearer}`);
    return fetch(input, init);
  };
}

const isProblem = (status: number, kind: string) => (error: unknown) =>
  error instanceof ProblemError && error.status === status && error.kind === kind;

for (const kind of STORE_KINDS) {
  describe(`the client signed in (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let origin: string;
    let productId: number;
    const ids = { ada: 0, bob: 0 };
    /** A client for `who`, signed in, with its requests recorded in `sent`. */
    const signedIn = async (who: 'ada' | 'bob' | 'sam', options: { now?: () => number; sent?: string[] } = {}) => {
      const client = createClient<Shop>({ baseUrl: origin, fetch: recordingFetch(options.sent ?? []), ...options });
      await client.auth().signIn({ email: `${who}@example.com`, password: PASSWORDS[who] });
      return client;
    };
    const order = (client: Client<Shop>) =>
      client.collection('orders').create({ items: [{ productId, quantity: 1 }], status: 'placed' });
    const refreshes = (sent: string[]) => sent.filter((line) => line.includes('/users/auth/refresh/')).length;

    before(async () => {
      db = await kind.create();
      app = await buildApp({
        config: defaultConfig({ ...shopSettings(), databaseUrl: db.url, maxEventLoopDelay: 0 }),
        logStream: false,
      });
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
      const keyed = createClient<Shop>({ baseUrl: origin, apiKey: WRITE_KEY });
      productId = (await keyed.collection('products').create({ name: 'Teapot', price: 19.5 })).id;
      await keyed
        .collection('users')
        .create({ name: 'Sam', email: 'sam@example.com', password: PASSWORDS.sam, role: 'staff' });
      // Shoppers sign themselves up, with no credential at all.
      const users = createClient<Shop>({ baseUrl: origin }).collection('users');
      ids.ada = (await users.create({ name: 'Ada', email: 'ada@example.com', password: PASSWORDS.ada })).id;
      ids.bob = (await users.create({ name: 'Bob', email: 'bob@example.com', password: PASSWORDS.bob })).id;
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    it('signs in, sends the token, and lists only its own orders; staff see all', async () => {
      const sent: string[] = [];
      const ada = await signedIn('ada', { sent });
      assert.deepEqual(
        [ada.auth().record?.id, ada.auth().record?.name, 'password' in (ada.auth().record ?? {})],
        [ids.ada, 'Ada', false],
      );
      assert.equal(ada.auth().session?.collection, 'users');
      const mine = await order(ada);
      assert.equal(mine.userId, ids.ada, 'the owner comes from the token');
      const bobs = await order(await signedIn('bob'));
      const listed = await ada.collection('orders').page();
      assert.ok(listed.records.length > 0);
      assert.ok(listed.records.every((o) => o.userId === ids.ada));
      await assert.rejects(ada.collection('orders').get(bobs.id), isProblem(404, 'not-found'));
      await assert.rejects(ada.collection('orders').update(mine, { status: 'paid' }), isProblem(403, 'forbidden'));
      assert.ok(sent.filter((line) => line.includes('/order')).every((line) => line.endsWith('+token')));
      assert.ok(sent[0]?.startsWith('POST /users/auth/') && !sent[0].endsWith('+token'), 'signs in with no token');

      const staff = await signedIn('sam');
      const all = (await staff.collection('orders').page({ limit: 1000 })).records.map((o) => o.userId);
      assert.ok(all.includes(ids.ada) && all.includes(ids.bob));
      await assert.rejects(
        createClient<Shop>({ baseUrl: origin }).auth().signIn({ email: 'ada@example.com', password: 'wrong!' }),
        isProblem(401, 'invalid-credentials'),
      );
    });

    it('embeds the records references name with expand, on get() and on pages', async () => {
      const ada = await signedIn('ada');
      const mine = await order(ada);
      type Expanded = Order & { expand: { userId: User; 'items.productId': { name: string }[] } };
      const read = (await ada
        .collection('orders')
        .get(mine.id, { expand: ['userId', 'items.productId'], fields: ['status'] })) as unknown as Expanded;
      assert.deepEqual(
        [read.status, read.items, read.expand.userId.name, read.expand['items.productId'].map((p) => p.name)],
        ['placed', undefined, 'Ada', ['Teapot']],
      );
      const page = await ada.collection('orders').page({ filter: { id: mine.id }, expand: ['userId'] });
      assert.equal((page.records[0] as unknown as Expanded).expand.userId.email, 'ada@example.com');
    });

    it('renews the token shortly before it expires, by its clock, once for requests at the same time', async () => {
      let now = Date.now();
      const sent: string[] = [];
      const ada = await signedIn('ada', { now: () => now, sent });
      const first = ada.auth().session as Session<User>;
      now = first.expiresAt - 40_000;
      await ada.collection('orders').page();
      assert.equal(refreshes(sent), 0, 'not yet');
      now = first.expiresAt - 20_000;
      const answers = await Promise.all([
        ada.collection('orders').page(),
        order(ada),
        ada.collection('products').page(),
      ]);
      assert.equal(answers.length, 3);
      assert.equal(refreshes(sent), 1, sent.join('\n'));
      const renewed = ada.auth().session as Session<User>;
      assert.notEqual(renewed.refreshToken, first.refreshToken, 'the refresh token rotates');
      assert.ok(renewed.expiresAt > first.expiresAt);
      await ada.auth().refresh();
      assert.equal(refreshes(sent), 2, 'and on demand');
    });

    it('renews the token once after a 401 and sends each refused request again', async () => {
      const sent: string[] = [];
      const ada = await signedIn('ada', { sent });
      const session = ada.auth().session as Session<User>;
      ada.auth().restore({ ...session, token: 'not.a.token' });
      const [page, made, read] = await Promise.all([
        ada.collection('orders').page(),
        order(ada),
        ada.collection('users').get(ids.ada),
      ]);
      assert.ok(page.records.every((o) => o.userId === ids.ada));
      assert.equal(made.userId, ids.ada);
      assert.equal(read.email, 'ada@example.com');
      assert.equal(refreshes(sent), 1, sent.join('\n'));
      assert.equal(sent.filter((line) => line.startsWith('POST /orders/')).length, 2, 'the create, sent again');
      assert.notEqual(ada.auth().token, 'not.a.token');
    });

    it('signs out here when a renewal fails, and the request fails with its 401', async () => {
      const ada = await signedIn('ada');
      const told: (Session<User> | undefined)[] = [];
      ada.auth().onChange((session) => told.push(session));
      const session = ada.auth().session as Session<User>;
      ada.auth().restore({ ...session, token: 'not.a.token', refreshToken: 'not-a-refresh-token' });
      await assert.rejects(ada.collection('orders').page(), isProblem(401, 'unauthorized'));
      assert.equal(ada.auth().signedIn, false);
      assert.deepEqual(
        told.map((s) => s?.token),
        ['not.a.token', undefined],
      );
      const listed = await ada.collection('orders').page();
      assert.deepEqual(listed.records, [], 'anonymous now: no order is anyone’s to see');
    });

    for (const tunnel of [undefined, 'post', 'get'] as const) {
      it(`signs out${tunnel ? ` tunnelled through ${tunnel}` : ''}: the refresh token renews nothing after`, async () => {
        const sent: string[] = [];
        const ada = createClient<Shop>({ baseUrl: origin, fetch: recordingFetch(sent), ...(tunnel && { tunnel }) });
        await ada.auth().signIn({ email: 'ada@example.com', password: PASSWORDS.ada });
        const { refreshToken } = ada.auth().session as Session<User>;
        await ada.auth().signOut();
        assert.equal(ada.auth().signedIn, false);
        assert.equal(sent.at(-1), tunnel ? 'POST as DELETE /users/auth/' : 'DELETE /users/auth/');
        await assert.rejects(
          createClient<Shop>({ baseUrl: origin }).auth().resume(refreshToken),
          isProblem(401, 'invalid-credentials'),
        );
        await ada.collection('products').page();
        assert.equal(sent.at(-1), 'GET /products/', 'no token any more');
      });
    }

    it('resumes from a kept refresh token', async () => {
      const kept = (await signedIn('bob')).auth().session as Session<User>;
      const bob = createClient<Shop>({ baseUrl: origin });
      assert.equal((await bob.auth('users').resume(kept.refreshToken)).name, 'Bob');
      assert.equal((await bob.collection('users').get(ids.bob)).email, 'bob@example.com');
    });

    it("follows the orders' feed with the token, and hears only its own orders", async () => {
      const sent: string[] = [];
      const ada = await signedIn('ada', { sent });
      // A token restock refuses: the feed renews it too, once, before it follows.
      ada.auth().restore({ ...(ada.auth().session as Session<User>), token: 'not.a.token' });
      const bob = await signedIn('bob');
      const heard: ChangeEvent<Order>[] = [];
      const stop = new AbortController();
      const following = (async () => {
        for await (const change of ada.collection('orders').subscribe({ since: 0, signal: stop.signal })) {
          heard.push(change);
        }
      })();
      const bobs = await order(bob);
      const adas = await order(ada);
      // Changes arrive in order, so once Ada's (made after Bob's) is heard, Bob's would have been too.
      await until(() => heard.some((change) => change.type === 'created' && change.record.id === adas.id));
      stop.abort();
      await following;
      const records = heard.flatMap((change) => (change.type === 'reset' ? [] : [change.record]));
      assert.ok(records.every((record) => record.userId === ids.ada));
      assert.ok(!records.some((record) => record.id === bobs.id));
      assert.ok(sent.some((line) => line === 'GET /orders/events/ +token'));
    });
  });
}

/** Resolves once `done()` holds, checking as events arrive; fails after 30 s rather than hang. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 20) {
    if (waited > 30_000) throw new Error('waited 30 s in vain');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
