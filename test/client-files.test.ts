/**
 * The client's files against a real restock serving the shop, on both stores: a create or
 * change whose file field holds a Blob, a Buffer or `{ data, name, type }` goes as
 * multipart/form-data (tunnelled too), an array keeps the files it names beside new ones,
 * null removes, a refusal is a ProblemError that changes nothing, and `fileUrl` gives the
 * download address (a thumbnail's, one with a file token from `auth().fileToken()` for a
 * shopper's order). Every exchange is checked against the served OpenAPI document.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { createClient, type FileMeta, ProblemError } from '../packages/client/src/index.js';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { WRITE_KEY, withKeys } from './helpers/keys.js';
import { type ContractRecorder, checkAgainstDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import { filesFolder, jpeg, png } from './helpers/uploads.js';

const SHOP = fileURLToPath(new URL('../schemas/shop', import.meta.url));

interface Product {
  name: string;
  sku?: string;
  price?: number;
  picture?: FileMeta;
  '~restock'?: { files: 'picture' };
}
interface Order {
  userId: number;
  items: { productId: number; quantity: number }[];
  status: string;
  attachments?: FileMeta[];
  '~restock'?: { owner: 'userId'; files: 'attachments' };
}
interface User {
  name: string;
  email: string;
  password?: string;
}
type Shop = { products: Product; orders: Order; users: User };

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');

for (const kind of STORE_KINDS) {
  describe(`the client's files (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let origin: string;
    let contract: ContractRecorder;
    before(async () => {
      db = await kind.create();
      const config = defaultConfig({
        ...withKeys({ schemas: SHOP }),
        databaseUrl: db.url,
        maxEventLoopDelay: 0,
        filesDir: join(filesFolder(), 'files'),
      });
      app = await buildApp({ config, logStream: false });
      contract = checkAgainstDocument(app);
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
      await contract.load();
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    for (const tunnel of [undefined, 'post'] as const) {
      it(`uploads, replaces and removes a product's picture${tunnel ? ', tunnelled' : ''}`, async () => {
        const shop = createClient<Shop>({ baseUrl: origin, apiKey: WRITE_KEY, ...(tunnel && { tunnel }) });
        const products = shop.collection('products');
        const red = await png(40, 30);
        const mug = await products.create({ name: 'Mug', price: 8, picture: new Blob([red], { type: 'image/png' }) });
        assert.equal(mug.name, 'Mug');
        assert.deepEqual(
          { type: mug.picture?.type, size: mug.picture?.size, sha256: mug.picture?.sha256 },
          { type: 'image/png', size: red.length, sha256: sha256(red) },
        );

        const blue = await jpeg(20, 20);
        const changed = await products.update(mug, {
          price: 9,
          picture: { data: blue, name: 'mug.jpg', type: 'image/jpeg' },
        });
        assert.equal(changed.price, 9);
        assert.equal(changed.picture?.sha256, sha256(blue));
        assert.equal(changed.picture?.type, 'image/jpeg');
        assert.notEqual(changed.picture?.name, mug.picture?.name);

        // A JSON change leaves the picture as it is, or keeps it by name.
        assert.deepEqual((await products.update(changed, { price: 10 })).picture, changed.picture);
        const byName = await fetch(`${origin}/product/${mug.id}/`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ picture: changed.picture?.name }),
        });
        assert.deepEqual([byName.status, ((await byName.json()) as Product).picture], [200, changed.picture]);

        // A PNG said to be a JPEG is refused, and nothing of the change is kept.
        const refused = await products
          .update(mug, { price: 1, picture: { data: red, name: 'fake.jpg', type: 'image/jpeg' } })
          .catch((error: unknown) => error);
        assert.ok(refused instanceof ProblemError, String(refused));
        assert.equal(refused.status, 415);
        assert.equal(refused.kind, 'file-type-refused');
        const held = await products.get(mug.id);
        assert.deepEqual([held.price, held.picture], [10, changed.picture]);

        const whole = await fetch(products.fileUrl(held, 'picture') ?? '');
        assert.deepEqual([whole.status, Buffer.from(await whole.arrayBuffer())], [200, blue]);
        const thumb = await fetch(products.fileUrl(held, 'picture', { thumb: '100x100' }) ?? '');
        const { width, height } = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
        assert.deepEqual([thumb.status, width, height], [200, 100, 100]);
        assert.equal(
          products.fileUrl(held, 'picture', { thumb: '100x100', token: 'a.b.c' }),
          `${origin}/products/${mug.id}/files/picture/${held.picture?.name}?thumb=100x100&token=a.b.c`,
        );
        const removed = await products.update(mug, { picture: null });
        assert.equal(removed.picture, undefined);
        assert.equal(products.fileUrl(removed, 'picture'), undefined);
      });
    }

    it("keeps the files an order's array names and adds new ones; its shopper downloads them with a file token", async () => {
      const staff = createClient<Shop>({ baseUrl: origin, apiKey: WRITE_KEY });
      const email = `ada-${kind.name}@example.com`;
      await staff.collection('users').create({ name: 'Ada', email, password: 'correct horse battery' });
      const [cup] = await staff.collection('products').create([{ name: 'Cup' }]);
      const shop = createClient<Shop>({ baseUrl: origin });
      await shop.auth().signIn({ email, password: 'correct horse battery' });
      const orders = shop.collection('orders');
      const picture = await png(10, 10);
      const order = await orders.create({
        items: [{ productId: cup?.id ?? 0, quantity: 1 }],
        status: 'placed',
        attachments: [picture, { data: PDF, name: 'invoice.pdf', type: 'application/pdf' }],
      });
      assert.deepEqual(
        order.attachments?.map((file) => file.type),
        ['image/png', 'application/pdf'],
      );
      // No header goes with a link: the file token does, and the download is the shopper's.
      const token = await shop.auth().fileToken();
      const invoice = order.attachments?.[1];
      const url = orders.fileUrl(order, 'attachments', { name: invoice?.name ?? '', token }) ?? '';
      const download = await fetch(url);
      assert.equal(download.status, 200);
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), PDF);
      assert.equal((await fetch(url.replace(/\?.*/, ''))).status, 404, 'hidden without the token');

      const staffOrders = staff.collection('orders');
      const [first] = order.attachments ?? [];
      const more = await jpeg(12, 12);
      const changed = await staffOrders.update(order, { attachments: [null, invoice ?? null, more] });
      assert.deepEqual(
        changed.attachments?.map((file) => file.sha256),
        [sha256(PDF), sha256(more)],
      );
      assert.ok(!changed.attachments?.some((file) => file.name === first?.name));
      const tooMany = await staffOrders
        .update(order, { attachments: [...(changed.attachments ?? []), picture, picture] })
        .catch((error: unknown) => error);
      assert.ok(tooMany instanceof ProblemError && tooMany.kind === 'too-many-files', String(tooMany));
      assert.deepEqual((await staffOrders.get(order.id)).attachments, changed.attachments);
    });

    it('sent every request as the OpenAPI document allows, and was answered as it says', () => {
      assert.ok(contract.checked > 0);
      assert.deepEqual(contract.violations, []);
    });
  });
}
