/**
 * Thumbnails and file tokens, on each store. A thumbnail is made once, of a size its field
 * lists, and kept in the file storage (seen there, then served from there); requests for
 * one at once share its make, and a bound of one makes one at a time; a decompression
 * bomb is refused. Files are uploaded as clients upload them (the bomb, which no upload
 * would take, is stored through the store). A file token stands for its account on
 * downloads alone, as `?token=`: neither an access token there nor a file token anywhere
 * else, nor one expired.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { SignJWT } from 'jose';
import sharp from 'sharp';
import type { FileMeta } from '../src/core/file-fields.js';
import { Thumbnails } from '../src/records/files/thumbnails.js';
import { fileKey, thumbKey } from '../src/store/files/file-keys.js';
import type { FileStorage } from '../src/store/files/file-storage.js';
import { folderStorage } from '../src/store/files/folder-storage.js';
import type { StoredRecord } from '../src/store/store.js';
import { problem } from './helpers/app.js';
import { useFileShop } from './helpers/file-shop.js';
import { picture, pngBomb, storeFile } from './helpers/files.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { headersOf, type Sender } from './helpers/shop-accounts.js';
import { STORE_KINDS } from './helpers/stores.js';
import { claimsOf, storeKey } from './helpers/tokens.js';

describe('thumbnails made at once', () => {
  it('share one make per thumbnail, and make one at a time when the bound is one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-thumbs-'));
    try {
      const folder = folderStorage(dir);
      let open = 0;
      let most = 0;
      const reads: string[] = [];
      // The folder, with each read counted while its stream is open.
      const storage: FileStorage = {
        ...folder,
        async read(key, range) {
          reads.push(key);
          const stream = await folder.read(key, range);
          open++;
          most = Math.max(most, open);
          stream?.once('close', () => open--);
          return stream;
        },
      };
      const file = await storeFile(storage, 'products', {
        bytes: await picture(300, 200),
        type: 'image/png',
        original: 'p.png',
      });
      const sizes = ['10x10', '20x0', '0x30', '40x40f'];
      const field = { name: 'picture', maxBytes: 1e6, types: [], maxFiles: 1, thumbs: sizes };
      const found = { record: {} as StoredRecord, field, file, key: fileKey('products', file.name), storage };
      const thumbnails = new Thumbnails({ maxPixels: 1e6, maxAtOnce: 1 });
      const asked = [...sizes, ...sizes, ...sizes].map((size) => thumbnails.of(found, 'products', size));
      const made = await Promise.all(asked);
      assert.equal(reads.length, sizes.length, 'each size read its picture once');
      assert.equal(most, 1, 'one made at a time');
      for (const [i, size] of sizes.entries()) assert.equal(made[i]?.key, thumbKey('products', file.name, size));
      const dimensions = await Promise.all(
        made.slice(0, 4).map(async (thumb) => {
          const bytes = await text(await storage.read(thumb.key));
          const { width, height } = await sharp(bytes).metadata();
          return `${width}x${height}`;
        }),
      );
      assert.deepEqual(dimensions, ['10x10', '20x13', '45x30', '40x27']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function text(stream: Readable | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream ?? []) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

for (const kind of STORE_KINDS) {
  describe(`thumbnails and file tokens (${kind.name})`, () => {
    const ctx = useFileShop(kind);
    let photo: FileMeta;
    let receipt: FileMeta;
    const get = (sender: Sender, url: string, options: Omit<InjectOptions, 'url'> = {}) =>
      ctx.app.inject({ ...options, url, headers: { ...options.headers, ...headersOf(ctx.shop, sender) } });
    const productFile = (name: string, query = '') => `/product/${ctx.shop.productId}/files/picture/${name}${query}`;
    let adaOrder: number;
    const orderFile = (query = '') => `/order/${adaOrder}/files/attachments/${receipt.name}${query}`;

    it('makes a thumbnail of a listed size once, keeps it, and serves it from the storage after', async () => {
      const product = await ctx.upload(
        'sam',
        { method: 'PUT', url: `/product/${ctx.shop.productId}/` },
        {
          picture: { name: 'teapot.jpg', type: 'image/jpeg', bytes: await picture(800, 400, 'jpeg') },
        },
      );
      photo = product.picture as FileMeta;
      const key = thumbKey('products', photo.name, '100x100');
      assert.equal(await ctx.storage.stat(key), undefined, 'none before it is asked for');
      // Asked for by several at once: one make, one stored thumbnail, one tag for all.
      const first = await Promise.all(
        Array.from({ length: 4 }, () => get('anonymous', productFile(photo.name, '?thumb=100x100'))),
      );
      for (const response of first) assert.equal(response.statusCode, 200, response.body);
      assert.equal(new Set(first.map((response) => response.headers.etag)).size, 1);
      const made = first[0];
      assert.ok(made);
      assert.equal(made.headers['content-type'], 'image/jpeg');
      assert.notEqual(made.headers.etag, `"${photo.sha256}"`, 'a tag of its own');
      assert.match(String(made.headers['content-disposition']), /^inline; filename=teapot_\w+_100x100\.jpg$/);
      const { width, height } = await sharp(made.rawPayload).metadata();
      assert.deepEqual([width, height], [100, 100]);
      const stored = await ctx.storage.stat(key);
      assert.equal(stored?.size, made.rawPayload.length, 'kept in the storage');

      // Served from the storage: what is there is what comes back, not a thumbnail made again.
      const marker = Buffer.concat([made.rawPayload, Buffer.from('kept')]);
      await ctx.storage.putBytes(key, marker, 'image/jpeg');
      const again = await get('anonymous', productFile(photo.name, '?thumb=100x100'));
      assert.deepEqual(again.rawPayload, marker);
      const same = await get('anonymous', productFile(photo.name, '?thumb=100x100'), {
        headers: { 'if-none-match': String(again.headers.etag) },
      });
      assert.equal(same.statusCode, 304);
      const part = await get('anonymous', productFile(photo.name, '?thumb=100x100'), {
        headers: { range: 'bytes=0-3' },
      });
      assert.equal(part.statusCode, 206);
      assert.deepEqual(part.rawPayload, marker.subarray(0, 4));
    });

    it('keeps the aspect for another listed size, and refuses a size not listed or a file that is no image', async () => {
      const wide = await get('anonymous', productFile(photo.name, '?thumb=400x400'));
      assert.equal(wide.statusCode, 200);
      const { width, height } = await sharp(wide.rawPayload).metadata();
      assert.deepEqual([width, height], [400, 400]);
      for (const size of ['50x50', '100x100f', 'big', '']) {
        problem(await get('anonymous', productFile(photo.name, `?thumb=${size}`)), 400, 'invalid-thumbnail');
      }
      assert.equal(await ctx.storage.stat(thumbKey('products', photo.name, '50x50')), undefined);
      const order = await ctx.upload(
        'ada',
        { method: 'POST', url: '/order/' },
        { attachments: { name: 'receipt.pdf', type: 'application/pdf', bytes: Buffer.from('%PDF-1.4\n') } },
        { items: [{ productId: ctx.shop.productId, quantity: 1 }], status: 'placed' },
      );
      adaOrder = order.id;
      [receipt] = order.attachments as [FileMeta];
      // Orders list no sizes: the field has the default, and a PDF is no image.
      problem(await get('ada', orderFile('?thumb=100x100')), 400, 'invalid-thumbnail');
      // The rule first: a hidden record's file has no thumbnail either, only the 404.
      problem(await get('bob', orderFile('?thumb=50x50')), 404, 'not-found');
    });

    // An upload of it is refused (test/file-refusals.test.ts); one stored before FILES_MAX_PIXELS was lowered is not.
    it('refuses a decompression bomb without opening it', async () => {
      const bomb = await ctx.attach('products', ctx.shop.productId, 'picture', {
        bytes: pngBomb(),
        type: 'image/png',
        original: 'bomb.png',
      });
      const refused = problem(await get('anonymous', productFile(bomb.name, '?thumb=100x100')), 422, 'image-too-large');
      assert.match(refused.detail, /more pixels than the server opens/);
      assert.equal(await ctx.storage.stat(thumbKey('products', bomb.name, '100x100')), undefined);
    });

    it('gives a signed-in shopper a file token that reads her files as she would, on downloads only', async () => {
      const asked = await ctx.app.inject({
        method: 'POST',
        url: '/users/auth/file-token/',
        headers: headersOf(ctx.shop, 'ada'),
      });
      assert.equal(asked.statusCode, 200, asked.body);
      assert.equal(asked.headers['cache-control'], 'no-store');
      const { token, expiresIn } = asked.json<{ token: string; expiresIn: number }>();
      assert.equal(expiresIn, 120);
      assert.equal(claimsOf(token).aud, 'restock:files');
      const byToken = await get('anonymous', orderFile(`?token=${token}`));
      assert.equal(byToken.statusCode, 200, byToken.body);
      assert.equal(byToken.headers['content-type'], 'application/pdf');

      const bobs = await ctx.app.inject({
        method: 'POST',
        url: '/users/auth/file-token/',
        headers: headersOf(ctx.shop, 'bob'),
      });
      problem(await get('anonymous', orderFile(`?token=${bobs.json().token}`)), 404, 'not-found');
      // An access token is no file token, and a file token is no access token.
      problem(await get('anonymous', orderFile(`?token=${ctx.shop.people.ada.token}`)), 401, 'unauthorized');
      const bearer = { authorization: `Bearer ${token}` };
      problem(await ctx.app.inject({ url: `/order/${ctx.shop.orders.ada}/`, headers: bearer }), 401, 'unauthorized');
      problem(await ctx.app.inject({ url: '/users/auth/', headers: bearer }), 401, 'unauthorized');
      problem(
        await ctx.app.inject({ method: 'POST', url: '/users/auth/file-token/', headers: bearer }),
        401,
        'unauthorized',
      );
    });

    it('refuses an expired file token, one made for another use, and asks for an account', async () => {
      const key = await storeKey(ctx.store.accounts);
      const now = Math.floor(Date.now() / 1000);
      const made = (claims: Record<string, unknown>, iat: number, exp: number) =>
        new SignJWT({ collection: 'users', ...claims })
          .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
          .setSubject(String(ctx.shop.people.ada.id))
          .setIssuer('restock')
          .setIssuedAt(iat)
          .setExpirationTime(exp)
          .sign(key.privateKey);
      const good = await made({ aud: 'restock:files' }, now, now + 60);
      assert.equal(
        (await get('anonymous', orderFile(`?token=${good}`))).statusCode,
        200,
        'made as the server makes them',
      );
      const expired = await made({ aud: 'restock:files' }, now - 600, now - 480);
      const otherUse = await made({ aud: 'restock:other' }, now, now + 60);
      for (const token of [expired, otherUse, 'not.a.token']) {
        problem(await get('anonymous', orderFile(`?token=${token}`)), 401, 'unauthorized');
      }
      const post = (sender: Sender) =>
        ctx.app.inject({ method: 'POST', url: '/users/auth/file-token/', headers: headersOf(ctx.shop, sender) });
      problem(await post('anonymous'), 401, 'unauthorized');
      problem(await post('write'), 403, 'forbidden');
    });

    itKeptTheDocument(ctx);
  });
}
