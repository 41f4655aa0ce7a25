/**
 * Uploads under the shop's rules, on every store: staff give a product a picture (on the
 * wire and through the method override), replace it and remove it; a shopper's order takes
 * attachments, kept or dropped one at a time by JSON. What a record holds is metadata
 * matching the bytes stored, and a file no record names is never left in storage.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { FileMeta } from '../src/core/file-fields.js';
import { body, problem, useApp } from './helpers/app.js';
import { headersOf, openShop, type Sender, type Shop, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS } from './helpers/stores.js';
import { type FilePart, filesFolder, jpeg, multipart, png, storedFiles } from './helpers/uploads.js';

for (const kind of STORE_KINDS) {
  describe(`uploads under the shop's rules (${kind.name})`, () => {
    const dir = filesFolder();
    const ctx = useApp(kind, shopSettings({ filesDir: dir }));
    let shop: Shop;
    before(async () => {
      shop = await openShop(ctx.app);
    });

    const upload = async (
      sender: Sender,
      method: string,
      url: string,
      files: Record<string, FilePart | FilePart[]>,
      record?: Record<string, unknown>,
      headers: Record<string, string> = {},
    ) => {
      const form = await multipart(files, record);
      return ctx.app.inject({
        method,
        url,
        payload: form.payload,
        headers: { ...form.headers, ...headersOf(shop, sender), ...headers },
      });
    };
    const picture = async (name = 'mug.png') => ({ name, type: 'image/png', bytes: await png(40, 30) });
    const bytesOf = (meta: FileMeta, collection = 'products') => readFileSync(join(dir, collection, meta.name));

    it('stores what staff upload as metadata matching the bytes, and anyone reads it', async () => {
      const file = await picture();
      const created = await upload('sam', 'POST', '/product/', { picture: file }, { name: 'Mug', price: 4.5 });
      assert.equal(created.statusCode, 201, created.body);
      const meta = body(created).picture as FileMeta;
      assert.match(meta.name, /^mug_[a-z0-9]{10}\.png$/);
      assert.equal(meta.type, 'image/png');
      assert.equal(meta.size, file.bytes.length);
      assert.equal(meta.sha256, createHash('sha256').update(file.bytes).digest('hex'));
      assert.deepEqual(bytesOf(meta), Buffer.from(file.bytes));
      const read = await ctx.app.inject({ url: `/product/${body(created).id}/` });
      assert.deepEqual(body(read).picture, meta);
    });

    it('refuses a shopper’s upload to a product, and keeps nothing of it', async () => {
      const before = storedFiles(dir);
      const refused = await upload('ada', 'POST', '/product/', { picture: await picture() }, { name: 'Fake' });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.deepEqual(storedFiles(dir), before);
    });

    it('replaces a picture through the method override, then removes it with null', async () => {
      const created = body(
        await upload('sam', 'POST', '/product/', { picture: await picture('a.png') }, { name: 'A' }),
      );
      const first = created.picture as FileMeta;
      const replaced = await upload(
        'sam',
        'POST',
        `/product/${created.id}/`,
        { picture: await picture('b.png') },
        {},
        {
          'http-x-http-method': 'PUT',
        },
      );
      assert.equal(replaced.statusCode, 200, replaced.body);
      const second = body(replaced).picture as FileMeta;
      assert.match(second.name, /^b_/);
      assert.notEqual(second.name, first.name);
      const removed = await ctx.app.inject({
        method: 'PUT',
        url: `/product/${created.id}/`,
        payload: { picture: null, price: 2 },
        headers: headersOf(shop, 'sam'),
      });
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal(body(removed).picture, undefined);
      assert.equal(body(removed).price, 2);
    });

    it('takes form fields in place of a record part, typed by the schema', async () => {
      const form = await multipart({ picture: await picture() }, undefined, { name: 'Jug', price: '12.5', stock: '3' });
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/product/',
        payload: form.payload,
        headers: { ...form.headers, ...headersOf(shop, 'write') },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual([body(created).name, body(created).price, body(created).stock], ['Jug', 12.5, 3]);
    });

    it('gives a shopper’s order attachments, which staff keep or drop one at a time', async () => {
      const files = [await picture('one.png'), { name: 'two.jpg', type: 'image/jpeg', bytes: await jpeg() }];
      const order = await upload(
        'ada',
        'POST',
        '/order/',
        { attachments: files },
        {
          items: [{ productId: shop.productId, quantity: 1 }],
          status: 'placed',
        },
      );
      assert.equal(order.statusCode, 201, order.body);
      const [one, two] = body(order).attachments as FileMeta[];
      assert.equal(body(order).userId, shop.people.ada.id);
      assert.deepEqual([one?.type, two?.type], ['image/png', 'image/jpeg']);
      const id = body(order).id;
      const third = await upload('sam', 'PUT', `/order/${id}/`, { attachments: await picture('three.png') });
      assert.equal(third.statusCode, 200, third.body);
      const held = body(third).attachments as FileMeta[];
      assert.deepEqual(held.slice(0, 2), [one, two]);
      const fourth = await upload('sam', 'PUT', `/order/${id}/`, { attachments: await picture('four.png') });
      problem(fourth, 422, 'too-many-files');
      const dropped = await ctx.app.inject({
        method: 'PUT',
        url: `/order/${id}/`,
        payload: { attachments: [one, null, held[2]] },
        headers: headersOf(shop, 'sam'),
      });
      assert.equal(dropped.statusCode, 200, dropped.body);
      assert.deepEqual(body(dropped).attachments, [one, held[2]]);
      const forged = await ctx.app.inject({
        method: 'PUT',
        url: `/order/${id}/`,
        payload: { attachments: [one, { ...one, name: 'elsewhere_0123456789.png' }] },
        headers: headersOf(shop, 'sam'),
      });
      problem(forged, 422, 'file-not-uploaded');
    });

    it('holds a batch to what JSON may say of files: keep, remove, never name a new one', async () => {
      const created = body(
        await upload('sam', 'POST', '/product/', { picture: await picture('kept.png') }, { name: 'K' }),
      );
      const held = created.picture as FileMeta;
      const batch = (operations: unknown[]) =>
        ctx.app.inject({ method: 'POST', url: '/batch/', payload: operations, headers: headersOf(shop, 'sam') });
      const forged = { ...held, name: 'other_0123456789.png' };
      const refused = await batch([
        { method: 'PUT', path: `/product/${created.id}/`, body: { price: 1 } },
        { method: 'POST', path: '/products/', body: { name: 'Forged', picture: forged } },
      ]);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(refused.body, /file-not-uploaded/);
      const kept = await batch([{ method: 'PUT', path: `/product/${created.id}/`, body: { price: 3, picture: held } }]);
      assert.equal(kept.statusCode, 200, kept.body);
      const after = body(await ctx.app.inject({ url: `/product/${created.id}/` }));
      assert.deepEqual([after.price, after.picture], [3, held]);
    });

    it('replays a retried upload under the same Idempotency-Key', async () => {
      const file = await picture('once.png');
      const key = { 'idempotency-key': `upload-${kind.name}` };
      const first = await upload('sam', 'POST', '/product/', { picture: file }, { name: 'Once' }, key);
      const again = await upload('sam', 'POST', '/product/', { picture: file }, { name: 'Once' }, key);
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(body(again), body(first));
      // The retry's own copy was staged, never put: one file in all.
      assert.deepEqual(
        storedFiles(dir).filter((path) => path.includes('once_')),
        [`products/${(body(first).picture as FileMeta).name}`],
      );
    });
  });
}
