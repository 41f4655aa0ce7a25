/**
 * Downloading a record's files (`GET|HEAD /<singular>/{id}/files/<field>/<name>`), on each
 * store: under the collection's `view` rule as a read of the record (a product's picture
 * for anyone, a shopper's order attachment for that shopper and staff alone, and one 404
 * for every way of not finding it), with a strong ETag, ranges, HEAD, and the headers that
 * keep an uploaded file from running in the API's origin. The picture and the receipt are
 * uploaded as clients upload them; types no field takes are stored through the store.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import type { FileMeta } from '../src/core/file-fields.js';
import { problem } from './helpers/app.js';
import { useFileShop } from './helpers/file-shop.js';
import { picture } from './helpers/files.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { headersOf, type Sender } from './helpers/shop-accounts.js';
import { STORE_KINDS } from './helpers/stores.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

for (const kind of STORE_KINDS) {
  describe(`downloading files (${kind.name})`, () => {
    const ctx = useFileShop(kind);
    let photo: Buffer;
    let picture1: FileMeta;
    let receipt: FileMeta;
    const get = (sender: Sender, url: string, options: Omit<InjectOptions, 'url'> = {}) =>
      ctx.app.inject({ ...options, url, headers: { ...options.headers, ...headersOf(ctx.shop, sender) } });
    const productFile = (name: string) => `/product/${ctx.shop.productId}/files/picture/${name}`;
    let adaOrder: number;
    const orderFile = (name: string) => `/order/${adaOrder}/files/attachments/${name}`;

    it('serves a product picture staff put there to anyone, with the headers of a file', async () => {
      photo = await picture(64, 48);
      const product = await ctx.upload(
        'sam',
        { method: 'PUT', url: `/product/${ctx.shop.productId}/` },
        {
          picture: { name: 'Tea pot.png', type: 'image/png', bytes: photo },
        },
      );
      picture1 = product.picture as FileMeta;
      assert.equal(picture1.sha256, createHash('sha256').update(photo).digest('hex'));
      for (const sender of ['anonymous', 'bob', 'sam', 'read'] as const) {
        const response = await get(sender, productFile(picture1.name));
        assert.equal(response.statusCode, 200, `${sender}: ${response.body}`);
        assert.deepEqual(response.rawPayload, photo);
      }
      const { headers } = await get('anonymous', productFile(picture1.name), {
        headers: { 'accept-encoding': 'br, gzip' },
      });
      assert.equal(headers['content-type'], 'image/png');
      assert.equal(headers['content-length'], String(photo.length));
      assert.equal(headers.etag, `"${picture1.sha256}"`);
      assert.equal(headers['accept-ranges'], 'bytes');
      assert.equal(headers['x-content-type-options'], 'nosniff');
      assert.equal(headers['content-security-policy'], CSP);
      assert.equal(headers['content-disposition'], `inline; filename=${picture1.name}`);
      assert.match(String(headers['cache-control']), /^private\b/);
      assert.equal(headers['content-encoding'], undefined);
    });

    it("serves a shopper's order attachment to that shopper and staff, and the same 404 to anyone else", async () => {
      const order = await ctx.upload(
        'ada',
        { method: 'POST', url: '/order/' },
        {
          attachments: { name: 'receipt.pdf', type: 'application/pdf', bytes: Buffer.from('%PDF-1.4\n% a receipt\n') },
        },
        { items: [{ productId: ctx.shop.productId, quantity: 1 }], status: 'placed' },
      );
      adaOrder = order.id;
      [receipt] = order.attachments as [FileMeta];
      for (const sender of ['ada', 'sam', 'write'] as const) {
        const response = await get(sender, orderFile(receipt.name));
        assert.equal(response.statusCode, 200, `${sender}: ${response.body}`);
        assert.equal(response.headers['content-type'], 'application/pdf');
      }
      const notFound = (await get('bob', `/order/${adaOrder}/`)).json();
      for (const [sender, url] of [
        ['bob', orderFile(receipt.name)],
        ['anonymous', orderFile(receipt.name)],
        ['ada', orderFile('nothing_here.pdf')],
        ['ada', `/order/${adaOrder}/files/items/${receipt.name}`],
        ['ada', `/order/${ctx.shop.orders.bob}/files/attachments/${receipt.name}`],
        ['ada', `/order/999999/files/attachments/${receipt.name}`],
        ['ada', `/order/007/files/attachments/${receipt.name}`],
      ] as const) {
        const refused = problem(await get(sender, url), 404, 'not-found');
        if (url === orderFile(receipt.name)) assert.equal(refused.detail, notFound.detail, 'as a hidden record');
      }
    });

    it('answers If-None-Match with 304, a Range with 206, and a Range past the end with 416', async () => {
      const url = productFile(picture1.name);
      const etag = `"${picture1.sha256}"`;
      const same = await get('anonymous', url, { headers: { 'if-none-match': etag } });
      assert.equal(same.statusCode, 304);
      assert.equal(same.headers.etag, etag);
      assert.equal(same.rawPayload.length, 0);
      assert.equal((await get('anonymous', url, { headers: { 'if-none-match': '"other"' } })).statusCode, 200);

      const part = await get('anonymous', url, { headers: { range: 'bytes=10-19' } });
      assert.equal(part.statusCode, 206);
      assert.equal(part.headers['content-range'], `bytes 10-19/${photo.length}`);
      assert.equal(part.headers['content-length'], '10');
      assert.deepEqual(part.rawPayload, photo.subarray(10, 20));
      const tail = await get('anonymous', url, { headers: { range: 'bytes=-5' } });
      assert.deepEqual(tail.rawPayload, photo.subarray(-5));

      const past = await get('anonymous', url, { headers: { range: `bytes=${photo.length + 10}-` } });
      problem(past, 416, 'range-not-satisfiable');
      assert.equal(past.headers['content-range'], `bytes */${photo.length}`);
      // A stale If-Range, several ranges, and a unit not of bytes: the whole file.
      for (const headers of [
        { range: 'bytes=0-3', 'if-range': '"stale"' },
        { range: 'bytes=0-3,20-25' },
        { range: 'lines=1-2' },
      ]) {
        const whole = await get('anonymous', url, { headers });
        assert.equal(whole.statusCode, 200, JSON.stringify(headers));
        assert.deepEqual(whole.rawPayload, photo);
      }
      const fresh = await get('anonymous', url, { headers: { range: 'bytes=0-3', 'if-range': etag } });
      assert.equal(fresh.statusCode, 206);
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const head = await get('anonymous', productFile(picture1.name), { method: 'HEAD' });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['content-length'], String(photo.length));
      assert.equal(head.headers.etag, `"${picture1.sha256}"`);
      assert.equal(head.rawPayload.length, 0);
      const range = await get('anonymous', productFile(picture1.name), {
        method: 'HEAD',
        headers: { range: 'bytes=0-9' },
      });
      assert.equal(range.statusCode, 206);
      assert.equal(range.headers['content-length'], '10');
      assert.equal((await get('bob', orderFile(receipt.name), { method: 'HEAD' })).statusCode, 404);
    });

    it('offers HTML, SVG and XML as downloads, sandboxed, never compressed', async () => {
      const types = {
        'text/html': '<script>alert(document.cookie)</script>',
        'image/svg+xml': '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'.repeat(100),
        'application/xml': '<a/>',
        'application/xhtml+xml': '<html xmlns="http://www.w3.org/1999/xhtml"/>',
        'text/javascript': 'alert(1)',
      };
      for (const [type, text] of Object.entries(types)) {
        const file = await ctx.attach('orders', ctx.shop.orders.bob, 'attachments', {
          bytes: Buffer.from(text),
          type,
          original: 'page.html',
        });
        const url = `/order/${ctx.shop.orders.bob}/files/attachments/${file.name}`;
        const response = await get('bob', url, { headers: { 'accept-encoding': 'gzip, br' } });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['content-type'], type);
        assert.equal(response.headers['content-disposition'], `attachment; filename=${file.name}`, type);
        assert.equal(response.headers['content-security-policy'], CSP);
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        assert.equal(response.headers['content-encoding'], undefined, `${type} is sent as stored`);
        assert.equal(response.body, text);
        // Three at most: each is removed again for the next.
        await ctx.clear('orders', ctx.shop.orders.bob, 'attachments');
      }
    });

    itKeptTheDocument(ctx);
  });
}
