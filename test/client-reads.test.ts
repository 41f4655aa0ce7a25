/**
 * What a read answers, typed by what it asks, and what a write may leave out, from the types
 * `restock types` writes for the example store: `fields` picks the record's fields, `expand`
 * embeds records under the names restock gives them, a write-only `password` is in no read
 * nor `b.ref`, an `x-owner` field is optional on create, and a closed schema refuses a field
 * it does not declare. `@ts-expect-error` marks each line that must fail to compile.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { recordTypes } from '../src/commands/types.js';
import { diagnostics, PREAMBLE } from './helpers/client-types.js';

describe('reads typed by their query, writes by the schema', () => {
  it('type what a read answers: only its fields, expand by name, no password; the owner optional on create', async () => {
    const found = await diagnostics(`${PREAMBLE}
      const users = shop.collection('users');
      // @ts-expect-error: the schemas are closed, so a misspelt field is no field
      await products.create({ name: 'Cup', prise: 3 });
      // @ts-expect-error: nor in a change
      await products.update(1, { prise: 3 });
      const order = await orders.get(1, { expand: ['userId', 'items.productId'] });
      const buyer: string | undefined = order.expand.userId?.email;
      const names: (string | undefined)[] = order.expand['items.productId'].map((product) => product?.name);
      // @ts-expect-error: restock names it by the whole reference, 'items.productId'
      void order.expand.items;
      const lean = await orders.get(1, { expand: ['items.productId'] });
      // @ts-expect-error: userId was not asked for
      void lean.expand.userId;
      // @ts-expect-error: nothing was asked to expand
      void (await orders.get(1)).expand;
      for await (const o of orders.list({ expand: ['userId'], fields: ['status'] })) void [o.expand.userId?.name, o.status, o.id];
      const picked = await products.get(1, { fields: ['name'] });
      const name: string = picked.name;
      // @ts-expect-error: only name (and id) was picked
      void picked.price;
      for await (const p of products.list({ fields: ['name', 'createdAt'] })) {
        void [p.name, p.createdAt, p.id];
        // @ts-expect-error: not picked
        void p.stock;
      }
      const ada = await users.create({ name: 'Ada', email: 'ada@example.com', password: 'correct horse' });
      await users.update(ada, { password: 'battery staple' });
      // @ts-expect-error: a password is written, never read back
      void ada.password;
      // @ts-expect-error: nor listed
      for await (const u of users.list()) void u.password;
      // @ts-expect-error: a query naming it is a 400
      await users.page({ fields: ['password'] });
      // @ts-expect-error: nor filtered on
      await users.page({ filter: { password: 'x' } });
      // x-owner: restock fills userId from the signed-in account.
      const mine = await orders.create({ items: [{ productId: 1, quantity: 1 }], status: 'placed' });
      const owner: number = mine.userId;
      await shop.batch((b) => {
        const user = b.create('users', { name: 'Grace', email: 'grace@example.com', password: 'correct horse' });
        // @ts-expect-error: no reference to a password: no result carries it
        b.ref(user, 'password');
        return [user, b.create('orders', { items: [{ productId: b.ref(user, 'id'), quantity: 1 }], status: 'placed' })];
      });
      return [buyer, names, name, owner];
    }`);
    assert.deepEqual(found, []);
  });

  it('type a reference followed two deep as an expand inside the embedded record; untyped, any name', async () => {
    const found = await diagnostics(`
      interface A { bId: number; tags: { bId: number }[] }; interface B { cId: number; label: string }
      const client = createClient<{ as: A; bs: B; cs: { size: number } }, { as: { bId: 'bs'; 'tags.bId': 'bs'; 'bId.cId': 'cs' }; bs: { cId: 'cs' } }>({ baseUrl: 'http://x' });
      export async function use() {
      const a = await client.collection('as').get(1, { expand: ['bId.cId', 'tags.bId'] });
      const size: number | undefined = a.expand.bId?.expand.cId?.size;
      const labels: (string | undefined)[] = a.expand['tags.bId'].map((b) => b?.label);
      // @ts-expect-error: tags.bId followed no second reference
      void a.expand['tags.bId'][0]?.expand;
      const loose = await createClient({ baseUrl: 'http://x' }).collection('things').get(1, { fields: ['name'], expand: ['ownerId'] });
      void [loose.name, loose.expand.ownerId];
      return [size, labels];
      }
    `);
    assert.deepEqual(found, []);
  });

  it('notes a password whether or not the account schema declares it, and the x-owner field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-types-'));
    const account = { type: 'object', additionalProperties: false, properties: { email: { type: 'string' } } };
    writeFileSync(join(dir, 'members.json'), JSON.stringify({ ...account, 'x-unique': ['email'], 'x-auth': {} }));
    const types = await recordTypes(dir);
    rmSync(dir, { recursive: true, force: true });
    assert.match(types, /password\?: string;[\s\S]*"~restock"\?: \{ ?writeOnly: "password" ?\}/);
    assert.match(await recordTypes('schemas/shop'), /"~restock"\?: \{ ?owner: "userId"; files: "attachments" ?\}/);
  });
});
