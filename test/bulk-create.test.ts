/**
 * A JSON array POSTed to a create path creates all its records in one transaction or none,
 * on both stores: the answer, the refusals with their items' pointers, Idempotency-Key, the
 * aliases and the override, and access control.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { body, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { injectAs, withKeys } from './helpers/keys.js';
import { OPEN_SHOP_SCHEMAS } from './helpers/open-shop.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';

const SHOP_SCHEMAS = OPEN_SHOP_SCHEMAS;

interface Created {
  id: number;
  name: string;
  sku?: string;
}

for (const kind of STORE_KINDS) {
  describe(`bulk create (${kind.name})`, () => {
    const ctx = useApp(kind, { schemas: SHOP_SCHEMAS, maxBulkRecords: 5 }, { contract: true });
    const post = (payload: unknown, headers: Record<string, string> = {}, url = '/product/') =>
      ctx.app.inject({
        method: 'POST',
        url,
        headers: { ...JSON_HEADERS, ...headers },
        payload: JSON.stringify(payload),
      });
    const count = async () => (body<unknown[]>(await ctx.app.inject({ url: '/products/?limit=1000' })) as []).length;

    it('creates every record in order: 201 and the array, each record with its id', async () => {
      const response = await post([{ name: 'kettle', sku: 'K-1' }, { name: 'cup' }, { name: 'pot', sku: 'P-1' }]);
      assert.equal(response.statusCode, 201);
      const made = body<Created[]>(response);
      assert.deepEqual(
        made.map((r) => r.name),
        ['kettle', 'cup', 'pot'],
      );
      assert.ok(
        made.every((r, i) => i === 0 || r.id > (made[i - 1] as Created).id),
        'ids rise in the order sent',
      );
      for (const record of made)
        assert.equal(body<Created>(await ctx.app.inject({ url: `/product/${record.id}/` })).name, record.name);
    });

    it('creates none when any item fails, and points at every failing item', async () => {
      const before = await count();
      const refused = problem(
        await post([{ name: 'fine' }, { price: -1 }, { name: 'also fine' }, {}]),
        422,
        'schema-violation',
      );
      const pointers = (refused as { errors: { pointer: string }[] }).errors.map((e) => e.pointer);
      assert.ok(
        pointers.includes('/1/name') && pointers.includes('/1/price') && pointers.includes('/3/name'),
        pointers.join(' '),
      );
      const notObjects = problem(await post([{ name: 'fine' }, 7, ['x']]), 400, 'invalid-record') as {
        errors: { pointer: string }[];
      };
      assert.deepEqual(
        notObjects.errors.map((e) => e.pointer),
        ['/1', '/2'],
      );
      problem(await post([]), 400, 'invalid-record');
      const tooMany = problem(
        await post(Array.from({ length: 6 }, (_, i) => ({ name: `n${i}` }))),
        413,
        'too-many-records',
      );
      assert.match(tooMany.detail, /at most 5 records/);
      assert.equal(await count(), before, 'nothing was written');
    });

    it('refuses a unique value taken by a stored record or by another item, naming the items', async () => {
      await post([{ name: 'stored', sku: 'TAKEN' }]);
      const before = await count();
      const taken = problem(
        await post([
          { name: 'a', sku: 'FREE-1' },
          { name: 'b', sku: 'TAKEN' },
        ]),
        409,
        'unique-conflict',
      );
      assert.deepEqual(
        (taken as { errors: { pointer: string }[] }).errors.map((e) => e.pointer),
        ['/1/sku'],
      );
      const twice = problem(await post([{ name: 'a', sku: 'TWICE' }, { name: 'b' }, { name: 'c', sku: 'TWICE' }]), 409);
      assert.deepEqual((twice as { errors: { pointer: string; message: string }[] }).errors, [
        { pointer: '/2/sku', message: 'is also the value of item 0' },
      ]);
      assert.equal(await count(), before, 'nothing was written');
    });

    it('replays an Idempotency-Key, refuses it for another array, and says when a record it made is gone', async () => {
      const key = { 'idempotency-key': `bulk-${kind.name}` };
      const payload = [{ name: 'first' }, { name: 'second' }];
      const made = await post(payload, key);
      assert.equal(made.statusCode, 201);
      const again = await post(payload, key);
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, made.body);
      problem(await post([{ name: 'first' }], key), 422, 'idempotency-key-reused');

      const second = (body<Created[]>(made)[1] as Created).id;
      assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/product/${second}/` })).statusCode, 200);
      const gone = problem(await post(payload, key), 410, 'idempotent-record-gone');
      assert.match(gone.detail, new RegExp(`record ${second} of products`));
    });

    it('is taken at the plural path and through the override header', async () => {
      const plural = await post([{ name: 'by plural' }], {}, '/products/');
      assert.equal(plural.statusCode, 201);
      const tunnelled = await post([{ name: 'tunnelled' }], { 'x-http-method-override': 'POST' });
      assert.equal(tunnelled.statusCode, 201);
      assert.equal(body<Created[]>(tunnelled)[0]?.name, 'tunnelled');
    });

    itKeptTheDocument(ctx);
  });

  describe(`bulk create with API keys (${kind.name})`, () => {
    const ctx = useApp(kind, withKeys(), { contract: true });
    it('needs a write key, like one create', async () => {
      const request = { method: 'POST' as const, url: '/users/', headers: JSON_HEADERS, payload: '[{"name":"a"}]' };
      problem(await injectAs(ctx.app, 'read', request), 403);
      problem(await injectAs(ctx.app, 'none', request), 401);
      assert.equal((await injectAs(ctx.app, 'write', request)).statusCode, 201);
    });

    itKeptTheDocument(ctx);
  });
}
