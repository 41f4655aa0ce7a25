/**
 * The client's `batch()` against a real restock on a port, on both stores, serving the shop
 * schemas with API keys: operations on several collections in one transaction with typed
 * results, references to earlier results, a failure's problem with the failing operation's
 * index, `ifMatch` and the retry after a `412`, idempotency, the wire (always a POST), and a
 * timeout. Then the types (what TypeScript refuses), the README's walk-through run as
 * written, and docs/api.md's curl example.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import {
  createClient,
  etagOf,
  OVERRIDE_HEADER,
  ProblemError,
  Reference,
  ref,
  type Stored,
} from '../packages/client/src/index.js';
import { recordTypes } from '../src/commands/types.js';
import { loadConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { useApp, useDatabase } from './helpers/app.js';
import { READ_KEY, WRITE_KEY, withKeys } from './helpers/keys.js';
import { shopWithOpenSchemas } from './helpers/open-shop.js';
import { silentServer } from './helpers/silent-server.js';
import { STORE_KINDS } from './helpers/stores.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENT = fileURLToPath(new URL('../packages/client/src/index.ts', import.meta.url));

/** The shop's records, as `restock types` writes them (test/client-types.test.ts checks those). */
interface User {
  name: string;
  email: string;
  password?: string;
  role?: 'customer' | 'staff';
}
interface Product {
  name: string;
  price?: number;
  sku?: string;
  stock?: number;
  [field: string]: unknown;
}
interface Order {
  userId: number;
  items: { productId: number; quantity: number; price?: number }[];
  status: 'placed' | 'paid' | 'shipped' | 'delivered' | 'cancelled';
}
type Shop = { users: User; products: Product; orders: Order };

/** A fetch that records each request's wire method, path and override header, then sends it. */
function recordingFetch(sent: string[]): typeof fetch {
  return async (input, init) => {
    const override = new Headers(init?.headers).get(OVERRIDE_HEADER);
    sent.push(`${init?.method} ${new URL(String(input)).pathname}${override ? ` as ${override}` : ''}`);
    return fetch(input, init);
  };
}

/** Asserts that `error` is the problem of a batch that failed at `operation`, with `status`. */
function failedAt(operation: number, status: number, pointer?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ProblemError, String(error));
    assert.equal(error.status, status, error.message);
    assert.equal(error.operation, operation, error.message);
    if (pointer) assert.match(error.problem.errors?.[0]?.pointer ?? '', pointer);
    return true;
  };
}

for (const kind of STORE_KINDS) {
  describe(`the client's batches (${kind.name})`, () => {
    // Products open (users too): a reference's look-alikes go in fields the example's products do not declare (note, tags).
    const ctx = useApp(kind, withKeys({ schemas: shopWithOpenSchemas() }));
    let origin: string;
    before(async () => {
      origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    });
    const staff = (options = {}) => createClient<Shop>({ baseUrl: origin, apiKey: WRITE_KEY, ...options });

    it('runs operations on several collections in one transaction, answering each typed result', async () => {
      const shop = staff();
      const products = shop.collection('products');
      const cup = await products.create({ name: 'Cup', sku: `CUP-${kind.name}`, price: 4, stock: 10 });
      const [user, order, taken, read] = await shop.batch((b) => {
        const ada = b.create('users', { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' });
        return [
          ada,
          b.create('orders', {
            userId: b.ref(ada, 'id'),
            items: [{ productId: cup.id, quantity: 2, price: b.ref(ada, 'id') }],
            status: 'placed',
          }),
          b.update('products', cup, { stock: 8 }, { ifMatch: cup }),
          b.get('users', b.ref(0, 'id')),
        ];
      });
      assert.deepEqual([user.status, order.status, taken.status, read.status], [201, 201, 200, 200]);
      assert.equal(user.location, `/user/${user.record.id}/`);
      assert.equal(taken.location, undefined);
      assert.equal(order.record.userId, user.record.id, 'the reference, filled in');
      assert.equal(order.record.items[0]?.price, user.record.id, 'a reference inside an array');
      assert.equal(read.record.email, 'ada@example.com');
      assert.equal('password' in user.record, false, 'a password is never answered');
      assert.equal(taken.record.stock, 8);
      for (const result of [user, order, taken, read]) {
        assert.match(result.etag, /^"\d+-\d+"$/);
        assert.equal(etagOf(result.record), result.etag, 'kept for ifMatch');
      }
      // The ETag kept is the one sent: no read before the change.
      const sent: string[] = [];
      const recorded = staff({ fetch: recordingFetch(sent) }).collection('products');
      await recorded.update(taken.record, { stock: 7 }, { ifMatch: taken.record });
      assert.deepEqual(sent, [`PUT /products/${cup.id}/`]);
      const me = await shop.auth().signIn({ email: 'ada@example.com', password: 'correct horse battery' });
      assert.equal(me.id, user.record.id, 'the password was kept, hashed');
    });

    it('throws the failing operation’s problem with its index, and keeps nothing', async () => {
      const shop = staff();
      const products = shop.collection('products');
      const cup = await products.create({ name: 'Mug', sku: `MUG-${kind.name}`, stock: 1 });
      const [grace] = await shop.batch((b) => [b.create('users', { name: 'Grace', email: 'grace@example.com' })]);
      const place = (stock: number) =>
        shop.batch((b) => [
          b.get('products', cup.id),
          b.create('orders', {
            userId: grace.record.id,
            items: [{ productId: cup.id, quantity: 1 }],
            status: 'placed',
          }),
          b.update('products', cup.id, { stock }),
        ]);
      await assert.rejects(place(-1), (error) => {
        failedAt(2, 422, /^\/2\/body\/stock$/)(error);
        assert.equal((error as ProblemError).kind, 'schema-violation');
        assert.match((error as ProblemError).problem.detail ?? '', /^Operation 2 \(PATCH \/products\/\d+\/\) failed/);
        return true;
      });
      const orders = shop.collection('orders');
      assert.deepEqual(await orders.list({ filter: { userId: grace.record.id } }).all(), [], 'no order kept');
      await assert.rejects(
        shop.batch((b) => [b.get('users', 1), b.delete('products', 987654)]),
        failedAt(1, 404, /^\/1\/path$/),
      );
      await assert.rejects(
        shop.batch((b) => [b.create('orders', { userId: b.ref(1, 'id'), items: [], status: 'placed' })]),
        failedAt(0, 422, /^\/0\/body\/userId$/),
      );
      const reader = createClient<Shop>({ baseUrl: origin, apiKey: READ_KEY });
      const [readable] = await reader.batch((b) => [b.get('products', cup.id)]);
      assert.equal(readable.record.name, 'Mug', 'a read key sends a batch of reads');
      await assert.rejects(
        reader.batch((b) => [b.get('products', cup.id), b.delete('products', cup.id)]),
        failedAt(1, 403, /^\/1$/),
      );
      assert.equal((await products.get(cup.id)).stock, 1, 'nothing changed');
    });

    it('refuses a stale ifMatch with 412 at its operation; reading again and sending anew succeeds', async () => {
      const shop = staff();
      const products = shop.collection('products');
      const teapot = await products.create({ name: 'Teapot', sku: `TEA-${kind.name}`, stock: 5 });
      const copy = { ...teapot };
      const [buyer] = await shop.batch((b) => [b.create('users', { name: 'Buyer', email: 'buyer@example.com' })]);
      // Another order took a teapot meanwhile.
      await products.update(teapot, { stock: 4 });
      const order = (cup: Stored<Product>, version: string | object) =>
        shop.batch((b) => [
          b.create('orders', {
            userId: buyer.record.id,
            items: [{ productId: cup.id, quantity: 2 }],
            status: 'placed',
          }),
          b.update('products', cup, { stock: (cup.stock ?? 0) - 2 }, { ifMatch: version }),
        ]);
      for (const stale of [teapot, copy, etagOf(teapot) as string]) {
        await assert.rejects(order(teapot, stale), (error) => {
          failedAt(1, 412, /^\/1\/ifMatch$/)(error);
          return (error as ProblemError).kind === 'precondition-failed';
        });
      }
      assert.deepEqual(
        await shop
          .collection('orders')
          .list({ filter: { userId: buyer.record.id } })
          .all(),
        [],
      );

      let attempts = 0;
      let placed: Awaited<ReturnType<typeof order>> | undefined;
      let cup = teapot;
      while (placed === undefined) {
        attempts++;
        try {
          placed = await order(cup, cup);
        } catch (error) {
          if (!(error instanceof ProblemError && error.status === 412 && attempts < 3)) throw error;
          cup = await products.get(teapot.id);
        }
      }
      assert.equal(attempts, 2);
      assert.equal(placed[1].record.stock, 2, 'taken from the stock as it was when read again');
      assert.equal(placed[0].record.items[0]?.productId, teapot.id);
    });

    it('sends text that reads like a reference as text, and refuses a reference it cannot write', async () => {
      const shop = staff();
      const [made] = await shop.batch((b) => [
        b.create('products', { name: '$0.name', sku: `$1.sku-${kind.name}`, note: '$5.00', tags: ['$0.id'] }),
      ]);
      assert.deepEqual(
        [made.record.name, made.record.sku, made.record.note, made.record.tags],
        ['$0.name', `$1.sku-${kind.name}`, '$5.00', ['$0.id']],
      );
      assert.equal(String(ref(0, 'id')), '$0.id');
      assert.throws(() => JSON.stringify({ userId: ref(0, 'id') }), TypeError);
      await assert.rejects(
        shop.batch((b) => {
          const outside = b.create('users', { name: 'Not sent', email: 'not-sent@example.com' });
          return [b.create('orders', { userId: b.ref(outside, 'id'), items: [], status: 'placed' })];
        }),
        TypeError,
      );
      assert.ok(ref(0, 'id') instanceof Reference);
    });

    it('sends an Idempotency-Key: a batch whose answer was lost is sent again and runs once', async () => {
      let lost = 0;
      const losing: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (String(input).endsWith('/batch/') && lost++ === 0) throw new TypeError('fetch failed: the answer was lost');
        return response;
      };
      const shop = staff({ fetch: losing });
      const [first] = await shop.batch((b) => [b.create('users', { name: 'Once', email: 'once@example.com' })]);
      assert.equal(lost, 2, 'sent twice');
      const users = staff().collection('users');
      assert.deepEqual(
        (await users.list({ filter: { email: 'once@example.com' } }).all()).map((u) => u.id),
        [first.record.id],
      );
      const again = () =>
        staff().batch((b) => [b.create('users', { name: 'Keyed', email: 'keyed@example.com' })], {
          idempotencyKey: `batch-${kind.name}`,
        });
      const [one] = await again();
      const [two] = await again();
      assert.equal(two.record.id, one.record.id, 'the first answer, replayed');
      await assert.rejects(
        staff().batch((b) => [b.create('users', { name: 'Other', email: 'other@example.com' })], {
          idempotencyKey: `batch-${kind.name}`,
        }),
        (error) => error instanceof ProblemError && error.kind === 'idempotency-key-reused',
      );
    });

    for (const tunnel of ['post', 'get'] as const) {
      it(`goes as a plain POST when the client tunnels through ${tunnel}`, async () => {
        const sent: string[] = [];
        const shop = staff({ tunnel, fetch: recordingFetch(sent) });
        const [made, gone] = await shop.batch((b) => {
          const made = b.create('products', { name: `tunnelled ${tunnel}` });
          return [made, b.delete('products', b.ref(made, 'id'))];
        });
        assert.equal(gone.record.id, made.record.id);
        assert.deepEqual(sent, ['POST /batch/']);
      });
    }
  });
}

describe('a batch under a signal or a timeout', () => {
  it('stops when its signal aborts or its timeout passes, however long the server takes', async () => {
    const silent = await silentServer();
    try {
      const shop = createClient<Shop>({ baseUrl: silent.url, retries: 5 });
      await assert.rejects(
        shop.batch((b) => [b.get('users', 1)], { timeout: 50 }),
        (error: Error) => error.name === 'TimeoutError',
      );
      const stop = new AbortController();
      const connection = silent.connected();
      const sending = shop.batch((b) => [b.create('users', { name: 'never', email: 'n@example.com' })], {
        signal: stop.signal,
      });
      await connection;
      stop.abort(new Error('the user left'));
      await assert.rejects(sending, /the user left/);
    } finally {
      await silent.close();
    }
  });
});

/** The compiler's complaints about `usage`, a module beside the types `restock types` writes for the shop. */
async function diagnostics(usage: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'restock-client-batch-'));
  try {
    writeFileSync(join(dir, 'shop.ts'), await recordTypes('schemas/shop'));
    // .mts: a module, where the README's top-level await is allowed.
    writeFileSync(join(dir, 'usage.mts'), usage.replaceAll("'restock-client'", `'${CLIENT}'`));
    const program = ts.createProgram([join(dir, 'usage.mts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      types: ['node'],
      skipLibCheck: true,
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line : '-';
      return `${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PREAMBLE = `import { createClient, ref, type BatchResult, type Stored } from 'restock-client';
import type { Collections, Order, Product, References, User } from './shop.js';
const shop = createClient<Collections, References>({ baseUrl: 'http://127.0.0.1:3000' });
`;

describe('batch types, from the types restock writes for the shop', () => {
  it('type each result by its operation, and references by the field they name', async () => {
    const found = await diagnostics(`${PREAMBLE}
      const [user, order, product, gone] = await shop.batch((b) => {
        const ada = b.create('users', { name: 'Ada', email: 'ada@example.com' });
        const cup = b.get('products', 3);
        return [
          ada,
          b.create('orders', {
            userId: b.ref(ada, 'id'),
            items: [{ productId: b.ref(cup, 'id'), quantity: 1, price: b.ref(cup, 'price') }],
            status: 'placed',
          }),
          b.update('products', 3, { stock: 2, name: b.ref(ada, 'name') }, { ifMatch: '"3-1"' }),
          b.delete('products', ref(0, 'id')),
        ];
      }, { idempotencyKey: 'k', timeout: 5000 });
      const typed: [BatchResult<User>, BatchResult<Order>, BatchResult<Product>, BatchResult<Product>] = [user, order, product, gone];
      const email: string = user.record.email;
      const status: Order['status'] = order.record.status;
      const price: number | undefined = product.record.price;
      const record: Stored<Product> = gone.record;
      const code: 200 | 201 = gone.status;
      const etag: string = gone.etag;
      const [only] = await shop.batch((b) => [b.get('orders', 1)]);
      const items: Order['items'] = only.record.items;
      export { typed, email, status, price, record, code, etag, items };
    `);
    assert.deepEqual(found, []);
  });

  it('refuse an unknown collection, a field the record lacks, a value of another type, and a result not there', async () => {
    const found = await diagnostics(`${PREAMBLE}
      // @ts-expect-error: no collection "orderz"
      await shop.batch((b) => [b.create('orderz', {})]);
      // @ts-expect-error: an order has no field "nope"
      await shop.batch((b) => [b.update('orders', 1, { nope: 1 })]);
      // @ts-expect-error: price is a number
      await shop.batch((b) => [b.update('products', 1, { price: 'cheap' })]);
      // @ts-expect-error: a user needs an email
      await shop.batch((b) => [b.create('users', { name: 'Ada' })]);
      // @ts-expect-error: not a status
      await shop.batch((b) => [b.update('orders', 1, { status: 'lost' })]);
      await shop.batch((b) => {
        const ada = b.create('users', { name: 'Ada', email: 'ada@example.com' });
        // @ts-expect-error: a user has no field "nope"
        return [ada, b.create('orders', { userId: b.ref(ada, 'nope'), items: [], status: 'placed' })];
      });
      await shop.batch((b) => {
        const ada = b.create('users', { name: 'Ada', email: 'ada@example.com' });
        // @ts-expect-error: a name is text, a userId a number
        return [ada, b.create('orders', { userId: b.ref(ada, 'name'), items: [], status: 'placed' })];
      });
      await shop.batch((b) => {
        const ada = b.create('users', { name: 'Ada', email: 'ada@example.com' });
        // @ts-expect-error: a path's id is a number
        return [ada, b.get('users', b.ref(ada, 'email'))];
      });
      // @ts-expect-error: one operation, one result
      const [, second] = await shop.batch((b) => [b.get('users', 1)]);
      // @ts-expect-error: a read takes no ifMatch
      await shop.batch((b) => [b.get('users', 1, { ifMatch: '"1-1"' })]);
      void second;
    `);
    assert.deepEqual(found, []);
  });
});

/** The README's walk-through with the client's batch: its one `ts` block under that heading. */
function readmeBatchExample(): string {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = text.indexOf('# Place an order and take stock, in one batch\n');
  assert.ok(at >= 0, 'README.md has the batch walk-through');
  return /```ts\n([\s\S]*?)```/.exec(text.slice(at))?.[1] ?? '';
}

describe("the README's batch walk-through", () => {
  it('type-checks against the types restock writes for the shop', async () => {
    assert.deepEqual(await diagnostics(readmeBatchExample()), []);
  });

  const kind = STORE_KINDS[0] as (typeof STORE_KINDS)[number];
  const ctx = useDatabase(kind);

  it('runs as written against the shop the README serves, after its shopper and cups exist', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const serve = /^(SCHEMAS=\S+ API_KEYS=\S+) npm start$/m.exec(readme)?.[1] ?? '';
    const variables = Object.fromEntries(
      [...serve.matchAll(/([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value]),
    );
    assert.equal(variables.SCHEMAS, './schemas/shop');
    const key = (variables.API_KEYS ?? '').split(':')[2] ?? '';
    const app = await buildApp({
      config: loadConfig([], { ...variables, DATABASE_URL: ctx.db.url, MAX_EVENT_LOOP_DELAY: '0' }).config,
      logStream: false,
    });
    const dir = mkdtempSync(join(tmpdir(), 'restock-readme-batch-'));
    try {
      const origin = await app.listen({ host: '127.0.0.1', port: 0 });
      // What the README's shop walk-through leaves: Grace, and the cups.
      const shop = createClient<Shop>({ baseUrl: origin, apiKey: key });
      const grace = await shop.collection('users').create({ name: 'Grace Hopper', email: 'grace@example.com' });
      const cup = await shop.collection('products').create({ name: 'Cup', sku: 'CUP-1', price: 4 });
      const script = join(dir, 'walk.mts');
      writeFileSync(
        script,
        readmeBatchExample().replaceAll('http://127.0.0.1:3000', origin).replaceAll("'restock-client'", `'${CLIENT}'`),
      );
      const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { cwd: ROOT });
      const [order] = await shop
        .collection('orders')
        .list({ filter: { userId: grace.id } })
        .all();
      assert.ok(order, stdout);
      assert.equal(stdout.trim(), `order ${order.id}: 10 cups left`);
      assert.deepEqual(order.items, [{ productId: cup.id, quantity: 2, price: 4 }]);
      assert.equal((await shop.collection('products').get(cup.id)).stock, 10);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("docs/api.md's batch example", () => {
  const kind = STORE_KINDS[0] as (typeof STORE_KINDS)[number];
  const ctx = useApp(kind);

  it('answers 200 with each result, its references filled in, as the text shows', async () => {
    const origin = (await ctx.app.listen({ host: '127.0.0.1', port: 0 })).replace('http://', '');
    const text = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const section = text.slice(text.indexOf('## Batches\n'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    assert.match(block, /^curl -X POST localhost:3000\/batch\//);
    const { stdout } = await run('sh', [
      '-c',
      block.replaceAll('localhost:3000', origin).replace('curl ', 'curl -sSf '),
    ]);
    const [user, product, changed] = JSON.parse(stdout) as { status: number; body: Record<string, unknown> }[];
    assert.deepEqual([user?.status, product?.status, changed?.status], [201, 201, 200]);
    assert.equal(product?.body.inventor, user?.body.id);
    assert.deepEqual(changed?.body.invented, [product?.body.id]);
    assert.equal(changed?.body.note, '$0.id is text');
  });
});
