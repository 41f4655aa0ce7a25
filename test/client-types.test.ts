/**
 * `restock types`: the types it writes for a schema folder's collections type the client's
 * records and queries, so that TypeScript accepts what the schema and restock's query language
 * allow and refuses what they do not: a filter, a sort, `fields` or `expand` naming a field
 * the record lacks, an operator its type does not take, a value of another type (checked by
 * the TypeScript compiler on files that use them; `@ts-expect-error` marks each line that must
 * fail, and an unused one is itself an error).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { runCommand } from '../src/commands/commands.js';
import { recordTypes } from '../src/commands/types.js';
import { CLIENT, diagnostics, PREAMBLE } from './helpers/client-types.js';

describe('client types generated from the example store', () => {
  it('type records, list queries, changes and sign-ins by collection', async () => {
    const found = await diagnostics(`${PREAMBLE}
      const user = await shop.collection('users').create({ name: 'Ada', email: 'ada@example.com' });
      const email: string = user.email;
      const id: number = user.id;
      await products.update(id, { price: 20, currency: 'EUR' });
      await products.update(id, { stock: null });
      for await (const product of products.list({ filter: { price: { gte: 10 } } })) {
        const name: string = product.name;
        void name;
      }
      const me = await shop.auth().signIn({ email: 'ada@example.com', password: 'correct horse' });
      const role: 'customer' | 'staff' | undefined = shop.auth('users').record?.role;
      void role;
      return email + me.email;
    }`);
    assert.deepEqual(found, []);
  });

  it('accept every field, operator and value the query language allows', async () => {
    const found = await diagnostics(`${PREAMBLE}
      const page: Page<Collections['products'], Pick<Stored<Collections['products']>, 'id' | 'name' | 'price'>> = await products.page({
        filter: {
          price: { gte: 1, lt: 5, in: [1, 2.5], ne: null },
          name: { startsWith: 'T', contains: 'ea', lte: 'U' },
          currency: { in: ['EUR', 'USD'] },
          sku: 'TEA-1',
          stock: null,
          id: { gt: 10 },
          createdAt: { gte: '2024-01-01T00:00:00.000Z' },
        },
        sort: ['-price', 'name', 'createdAt'],
        fields: ['name', 'price'],
        limit: 10,
        count: true,
        q: 'tea',
      });
      const total: number | undefined = page.total;
      const next = await products.page({ sort: 'price', cursor: page.cursor });
      await orders.page({ filter: { status: { in: ['paid', 'shipped'] }, userId: 3 }, expand: ['userId'] });
      const order = await orders.get(1, { expand: ['userId', 'items.productId'], fields: ['items', 'status'] });
      for await (const change of products.subscribe({ filter: { price: { lt: 10 } } })) void change;
      const signal = AbortSignal.timeout(1000);
      const options: RequestOptions = { signal, timeout: 500 };
      const listOptions: ListOptions<Collections['products'], {}> = { sort: '-price', ...options };
      for await (const p of products.list(listOptions).pages()) void p.cursor;
      const getOptions: GetOptions<Collections['orders'], References['orders']> = { expand: ['userId'] };
      const write: WriteOptions = { ifMatch: next.records[0], timeout: 1000 };
      const create: CreateOptions = { idempotencyKey: 'k', signal };
      await products.update(next.records[0]!, { price: 3 }, write);
      await orders.get(1, getOptions);
      const many = await products.create([{ name: 'Cup' }, { name: 'Saucer' }], create);
      const all: Stored<Collections['products']>[] = many;
      const third: Stored<Collections['products']> | undefined = many[2];
      const alsoMany: Stored<Collections['products']>[] = await products.createMany([{ name: 'Plate' }]);
      await orders.create({ userId: 1, items: [1, 2].map((productId) => ({ productId, quantity: 1 })), status: 'placed' });
      return [total, order.status, all, third, alsoMany];
    }`);
    assert.deepEqual(found, []);
  });

  it('refuse the typos users wrote, each where it is written', async () => {
    const found = await diagnostics(`${PREAMBLE}
      // @ts-expect-error: no field "pricee"
      await products.page({ filter: { pricee: { lt: 5 } } });
      // @ts-expect-error: price is a number
      await products.page({ filter: { price: { lt: 'abc' } } });
      // @ts-expect-error: startsWith is for text
      await products.page({ filter: { price: { startsWith: '1' } } });
      // @ts-expect-error: name is text
      await products.page({ filter: { name: { gt: 5 } } });
      // @ts-expect-error: not a currency
      await products.page({ filter: { currency: 'EURO' } });
      // @ts-expect-error: no operator "ilike"
      await products.page({ filter: { name: { ilike: 'tea' } } });
      // @ts-expect-error: no field "nope" to sort by
      await products.page({ sort: '-nope' });
      // @ts-expect-error: items is an array, which restock cannot order by
      await orders.page({ sort: 'items' });
      // @ts-expect-error: no field "nope" to pick
      await products.page({ fields: ['nope'] });
      // @ts-expect-error: status is no reference
      await orders.page({ expand: ['status'] });
      // @ts-expect-error: products hold no references
      await products.get(1, { expand: ['name'] });
      // @ts-expect-error: no field "nope" to pick
      await products.get(1, { fields: ['nope'] });
      // @ts-expect-error: the feed's filter is checked too
      products.subscribe({ filter: { pricee: 1 } });
      // @ts-expect-error: a timeout is milliseconds
      await products.get(1, { timeout: '5s' });
      // @ts-expect-error: not a tuple: a third record may be there
      const [, , third]: [unknown, unknown] = await products.create([{ name: 'a' }, { name: 'b' }]);
      void third;
    }`);
    assert.deepEqual(found, []);
  });

  it('check the fields, operators and values of filter expressions built with where()', async () => {
    const found = await diagnostics(`import { where } from '${CLIENT}';
      ${PREAMBLE}
      const w = where<Collections['products']>();
      const cheapOrToys = w.or({ price: { gt: 100 }, stock: { gt: 0 } }, w.not({ currency: { in: ['EUR', null] } }));
      await products.page({ filter: w.and(cheapOrToys, { name: 'Tea', id: { lte: 9 } }) });
      for await (const change of products.subscribe({ filter: w.not({ sku: null }) })) void change;
      const untyped = where<Record<string, unknown>>().or({ anything: { gte: 1 } }, { other: 'x' });
      // @ts-expect-error: no field "pricee"
      w.or({ pricee: { gt: 100 } }, { name: 'Tea' });
      // @ts-expect-error: price is a number
      w.and({ price: { lt: 'abc' } });
      // @ts-expect-error: not a currency
      w.not({ currency: 'EURO' });
      // @ts-expect-error: the language has no startsWith
      w.and({ name: { startsWith: 'T' } });
      // @ts-expect-error: contains is for array fields in an expression
      w.and({ name: { contains: 'ea' } });
      // @ts-expect-error: a plain string's fields are unchecked, so it is no clause
      w.not('pricee > 1');
      // @ts-expect-error: an expression over orders is no clause of one over products
      w.and(where<Collections['orders']>().and({ status: 'paid' }));
      return untyped;
    }`);
    assert.deepEqual(found, []);
  });

  it('type file fields: metadata on reads, uploads on writes, and file URLs by field', async () => {
    const found = await diagnostics(`${PREAMBLE}
      const bytes = new Uint8Array([137, 80, 78, 71]);
      const cup = await products.create({ name: 'Cup', picture: new Blob([bytes], { type: 'image/png' }) });
      const meta: { name: string; type: string; size: number; sha256: string } | undefined = cup.picture;
      await products.update(cup, { picture: { data: bytes, name: 'cup.png', type: 'image/png' } });
      await products.update(cup, { picture: null });
      const order = await orders.create({ userId: 1, items: [], status: 'placed', attachments: [bytes, Buffer.from('%PDF')] });
      const kept = order.attachments?.[0];
      await orders.update(order, { attachments: [kept ?? null, new File([bytes], 'more.png')] });
      const url: string | undefined = products.fileUrl(cup, 'picture', { thumb: '100x100', token: await shop.auth().fileToken() });
      const name: string | undefined = order.attachments?.[0]?.name;
      // @ts-expect-error: a read holds metadata, never bytes
      const blob: Blob | undefined = cup.picture;
      // @ts-expect-error: name holds text, not a file
      await products.create({ name: new Blob([bytes]) });
      // @ts-expect-error: price is no file field
      products.fileUrl(cup, 'price');
      // @ts-expect-error: an upload's data is bytes
      await products.update(cup, { picture: { data: 'not bytes' } });
      return [meta, url, name, blob];
    }`);
    assert.deepEqual(found, []);
  });

  it('refuse what the schemas do not allow', async () => {
    const found = await diagnostics(`${PREAMBLE}
      await shop.collection('users').create({ name: 'Ada' });
      await products.update(1, { currency: 'EURO' });
      await shop.collection('orderz').page();
      await shop.auth().signIn({ email: 'ada@example.com' });
      shop.auth('accountz');
    }`);
    assert.equal(found.length, 5, found.join('\n'));
    for (const word of [/email/, /"EURO"/, /orderz/, /password/, /accountz/]) assert.match(found.join('\n'), word);
  });
});

describe('restock types', () => {
  it('writes the types of the SCHEMAS folder to --out, and of the default collections to standard output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-types-'));
    const out = join(dir, 'shop.ts');
    const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
    assert.equal(await runCommand(['types', '--out', out], io, { SCHEMAS: 'schemas/shop' }), 0);
    assert.equal(readFileSync(out, 'utf8'), await recordTypes('schemas/shop'));
    assert.match(readFileSync(out, 'utf8'), /orders: \{ "userId": "users"; "items.productId": "products"; \}/);

    const printed: Buffer[] = [];
    io.stdout.on('data', (chunk: Buffer) => printed.push(chunk));
    assert.equal(await runCommand(['types'], io, {}), 0);
    const text = Buffer.concat(printed).toString();
    assert.match(text, /export interface Collections \{\n {2}users: User;\n {2}products: Product;\n\}/);
    rmSync(dir, { recursive: true, force: true });
  });
});
