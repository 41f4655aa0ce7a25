/**
 * Batches under kill -9 (the batch route's all-or-none promise, SPEC §10's durability): the
 * real server, on the shop schemas, takes concurrent batches that each create a user, create
 * an order for that user (`"$0.id"`) of one product, and take one unit off that product's
 * stock under If-Match of the product as read. It is killed with SIGKILL once a number of
 * batches have been acknowledged and others are in flight, then started again on the same
 * database. Then:
 *
 * - every batch is there whole or not at all: each user has exactly its batch's order, each
 *   order its batch's user (the order's price is its batch's number, so that an order can be
 *   traced to its batch without its user);
 * - every acknowledged batch is there, its records as the answer gave them;
 * - each product's stock is its initial stock less the orders naming it, and its version is
 *   one per such order: a merge kept without its order, or an order without its merge, shows.
 *
 * The If-Match makes the stock arithmetic hold under concurrency: a batch whose read went
 * stale gets 412 (nothing kept) and its client reads again and resends the same batch, so a
 * 412 that had kept anything would show as a second user with the same email (409).
 *
 * A second case kills the server while it refuses hostile batches (413: they would write more
 * than a request may carry): after the restart, nothing of any of them is there.
 *
 * Only the HTTP contract is used, as in ./crash.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_KEYS, authorization } from './helpers/keys.js';
import { shopWithOpenSchemas } from './helpers/open-shop.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const CLIENTS = 8;
const PRODUCTS = 4;
/** Far more than the batches can take: stock never reaches 0, where the schema would refuse a merge. */
const INITIAL_STOCK = 1_000_000;
/** The most batches a run may send (412 resends aside): the load is bounded even if the kill never came. */
const MAX_BATCHES = 600;

const headers = { 'content-type': 'application/json', ...authorization('write') };

type Fields = Record<string, unknown>;
type StoredRecord = Fields & { id: number };
interface Order extends StoredRecord {
  userId: number;
  items: { productId: number; quantity: number; price: number }[];
}
interface BatchEntry {
  status: number;
  headers: Record<string, string>;
  body: StoredRecord;
}

const emailOf = (index: number) => `batch-${index}@crash.example`;
const indexOfEmail = (email: unknown) => Number(/^batch-(\d+)@crash\.example$/.exec(String(email))?.[1] ?? Number.NaN);

/** What the clients share: the batches handed out, what the server acknowledged, and the kill. */
interface Load {
  products: number[];
  /** The next batch number to hand out. */
  next: number;
  /** Each batch sent at least once: the product it orders. */
  sent: Map<number, number>;
  /** Each acknowledged batch: its answer's entries. */
  acknowledged: Map<number, BatchEntry[]>;
  /** Batches sent and not yet answered: those the kill lands in the middle of. */
  inFlight: number;
  /** 412s answered to a stale If-Match (each resent). */
  stale: number;
  killed: boolean;
  /** Called on every acknowledgement and every send: decides when to kill. */
  progress(): void;
}

/** The operations of batch `index`: its user, its order of `product`, and one unit off the product's `stock` as read. */
function operationsOf(index: number, product: number, stock: number, etag: string) {
  return [
    { method: 'POST', path: '/user/', body: { name: `Shopper ${index}`, email: emailOf(index) } },
    {
      method: 'POST',
      path: '/order/',
      body: { userId: '$0.id', items: [{ productId: product, quantity: 1, price: index }], status: 'placed' },
    },
    { method: 'PATCH', path: `/product/${product}/`, body: { stock: stock - 1 }, ifMatch: etag },
  ];
}

/** Sends one batch until it is acknowledged (a 412 reads the product again and resends it). */
async function runBatch(server: RunningServer, load: Load, index: number, product: number): Promise<void> {
  for (;;) {
    const read = await fetch(`${server.url}/product/${product}/`, { headers });
    assert.equal(read.status, 200);
    const etag = read.headers.get('etag') as string;
    const { stock } = (await read.json()) as { stock: number };
    const body = JSON.stringify(operationsOf(index, product, stock, etag));
    load.inFlight++;
    load.progress();
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${server.url}/batch/`, { method: 'POST', headers, body });
      status = response.status;
      text = await response.text();
    } finally {
      load.inFlight--;
    }
    if (status === 412) {
      // Another batch took a unit of this product since it was read: nothing was kept.
      const problem = JSON.parse(text) as { type: string; errors: { pointer: string }[] };
      assert.match(problem.type, /\/problems\/precondition-failed$/, text);
      assert.deepEqual(
        problem.errors.map((error) => error.pointer),
        ['/2/ifMatch'],
        text,
      );
      load.stale++;
      continue;
    }
    assert.equal(status, 200, `batch ${index}: ${text}`);
    load.acknowledged.set(index, JSON.parse(text) as BatchEntry[]);
    load.progress();
    return;
  }
}

/** One client: sends batch after batch until the server dies under it, or the batches run out. */
async function client(server: RunningServer, load: Load): Promise<void> {
  while (!load.killed && load.next < MAX_BATCHES) {
    const index = load.next++;
    const product = load.products[index % PRODUCTS] as number;
    load.sent.set(index, product);
    try {
      await runBatch(server, load, index, product);
    } catch (error) {
      // A refused or reset connection, once the server was killed, ends this client.
      if (load.killed && error instanceof TypeError) return;
      throw error;
    }
  }
}

/** Every record of a collection, following the next links. */
async function listAll<T extends StoredRecord>(server: RunningServer, plural: string): Promise<T[]> {
  const records: T[] = [];
  let path: string | undefined = `/${plural}/?limit=1000`;
  while (path) {
    const response: Response = await fetch(`${server.url}${path}`, { headers });
    assert.equal(response.status, 200);
    records.push(...((await response.json()) as T[]));
    path = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return records;
}

/** After the restart: every batch whole or absent, every acknowledged one there. Returns the batches found. */
async function verify(server: RunningServer, load: Load): Promise<number> {
  const users = new Map<number, StoredRecord>();
  for (const user of await listAll(server, 'users')) {
    const index = indexOfEmail(user.email);
    assert.ok(load.sent.has(index), `user ${user.id} (${String(user.email)}) is of a batch that was sent`);
    assert.ok(!users.has(index), `one user for batch ${index}`);
    users.set(index, user);
  }
  const orders = new Map<number, Order>();
  for (const order of await listAll<Order>(server, 'orders')) {
    assert.equal(order.items.length, 1, `order ${order.id} is whole`);
    const index = order.items[0]?.price as number;
    assert.ok(load.sent.has(index), `order ${order.id} (price ${index}) is of a batch that was sent`);
    assert.ok(!orders.has(index), `one order for batch ${index}`);
    orders.set(index, order);
  }

  // All or nothing: a user without its order, or an order without its user, is half a batch.
  const byNumber = (a: number, b: number) => a - b;
  assert.deepEqual([...users.keys()].sort(byNumber), [...orders.keys()].sort(byNumber), 'users and orders pair up');
  for (const [index, user] of users) {
    const order = orders.get(index) as Order;
    assert.equal(order.userId, user.id, `batch ${index}: the order is its user's`);
    assert.deepEqual(order.items, [{ productId: load.sent.get(index), quantity: 1, price: index }]);
    assert.equal(user.name, `Shopper ${index}`);
  }

  // No acknowledged batch lost, nor changed since.
  for (const [index, [user, order, product]] of load.acknowledged) {
    assert.deepEqual(users.get(index), user?.body, `acknowledged batch ${index}: its user is there`);
    assert.deepEqual(orders.get(index), order?.body, `acknowledged batch ${index}: its order is there`);
    assert.equal(product?.body.id, load.sent.get(index));
  }

  // Each order took one unit and one version of its product, in the same transaction.
  const products = new Map((await listAll(server, 'products')).map((record) => [record.id, record]));
  for (const id of load.products) {
    const ordered = [...orders.values()].filter((order) => order.items[0]?.productId === id).length;
    assert.equal(products.get(id)?.stock, INITIAL_STOCK - ordered, `product ${id}: stock less its ${ordered} orders`);
    const etag = (await fetch(`${server.url}/product/${id}/`, { method: 'HEAD', headers })).headers.get('etag');
    assert.equal(etag, `"${id}-${1 + ordered}"`, `product ${id}: one version per order`);
  }
  return users.size;
}

/**
 * Batches refused for what they would write (413): one whose references copy a large value
 * it carries into every operation, refused before it runs, and one that copies a large
 * record it reads, refused once it has written a first copy in its transaction.
 */
function hostileBatches(productId: number, blob: string, run: number) {
  const copy = { method: 'POST', path: '/product/', body: { name: 'Copy', description: '$0.description' } };
  return [
    [
      { method: 'POST', path: '/user/', body: { name: 'Eve', email: `eve-${run}@crash.example`, blob } },
      ...Array.from({ length: 20 }, (_, i) => ({
        method: 'POST',
        path: '/user/',
        body: { name: 'Eve', email: `eve-${run}-${i}@crash.example`, blob: '$0.blob' },
      })),
    ],
    [{ method: 'GET', path: `/product/${productId}/` }, copy, copy],
  ];
}

for (const kind of STORE_KINDS) {
  describe(`batches under kill -9 (${kind.name})`, () => {
    it('keeps nothing of the hostile batches it was refusing when killed', async () => {
      const db = await kind.create();
      // Products and users open: the hostile batches carry fields the example's do not declare (description, blob).
      const env = { DATABASE_URL: db.url, SCHEMAS: shopWithOpenSchemas(), API_KEYS, RATE_LIMIT_MAX: '0' };
      let server = await startServer(env);
      try {
        const description = 'x'.repeat(600_000);
        const made = await fetch(`${server.url}/product/`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'Big', description }),
        });
        assert.equal(made.status, 201);
        const productId = ((await made.json()) as StoredRecord).id;
        const blob = 'y'.repeat(400_000);
        // Killed once some batches were refused and others are in flight; at most 200 are sent.
        const target = 4 + Math.floor(Math.random() * 12);
        let refused = 0;
        let sent = 0;
        let inFlight = 0;
        let killed = false;
        let exit: Promise<number | null> | undefined;
        const attacker = async () => {
          while (!killed && sent < 200) {
            const batch = hostileBatches(productId, blob, sent)[sent++ % 2];
            inFlight++;
            let status: number;
            try {
              status = (await fetch(`${server.url}/batch/`, { method: 'POST', headers, body: JSON.stringify(batch) }))
                .status;
            } catch (error) {
              if (killed && error instanceof TypeError) return;
              throw error;
            } finally {
              inFlight--;
            }
            assert.equal(status, 413);
            if (++refused >= target && inFlight > 0 && !killed) {
              killed = true;
              exit = server.stop('SIGKILL');
            }
          }
        };
        await Promise.all(Array.from({ length: 4 }, attacker));
        assert.ok(exit, `the batches ran out before ${target} were refused`);
        await exit;

        server = await startServer(env);
        assert.deepEqual(await listAll(server, 'users'), [], 'no user of a refused batch');
        const products = await listAll(server, 'products');
        assert.deepEqual(
          products.map((product) => product.id),
          [productId],
          'no copy of a refused batch',
        );
      } finally {
        await server.stop('SIGKILL');
        await db.drop();
      }
    });

    it('keeps every acknowledged batch, and every batch whole or not at all', async (t) => {
      const db = await kind.create();
      const env = { DATABASE_URL: db.url, SCHEMAS: 'schemas/shop', API_KEYS, RATE_LIMIT_MAX: '0' };
      let server = await startServer(env);
      try {
        const products: number[] = [];
        for (let p = 0; p < PRODUCTS; p++) {
          const response = await fetch(`${server.url}/product/`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: `Product ${p}`, stock: INITIAL_STOCK }),
          });
          assert.equal(response.status, 201);
          products.push(((await response.json()) as StoredRecord).id);
        }

        // The kill comes after a random number of acknowledged batches (never none: a kill
        // before any would have nothing to lose), while others are in flight (to tear).
        const target = 10 + Math.floor(Math.random() * 50);
        let killed!: () => void;
        const kill = new Promise<void>((resolve) => {
          killed = resolve;
        });
        const at = { acknowledged: 0, inFlight: 0 };
        let exit: Promise<number | null> | undefined;
        const load: Load = {
          products,
          next: 0,
          sent: new Map(),
          acknowledged: new Map(),
          inFlight: 0,
          stale: 0,
          killed: false,
          progress() {
            if (load.killed || load.acknowledged.size < target || load.inFlight === 0) return;
            at.acknowledged = load.acknowledged.size;
            at.inFlight = load.inFlight;
            // stop() sends SIGKILL before its first await, so the figures are the kill's. An answer
            // already sent may still be read after it: it counts as acknowledged, and is checked.
            exit = server.stop('SIGKILL');
            load.killed = true;
            killed();
          },
        };
        const clients = Promise.all(Array.from({ length: CLIENTS }, () => client(server, load)));
        await Promise.race([kill, clients]);
        assert.ok(exit, `the ${MAX_BATCHES} batches ran out before ${target} were acknowledged`);
        await exit;
        await clients;

        server = await startServer(env);
        const found = await verify(server, load);

        // The restarted server takes batches on the same products (no lock or claim left behind).
        const index = MAX_BATCHES;
        load.sent.set(index, products[0] as number);
        await runBatch(server, load, index, products[0] as number);
        await verify(server, load);

        t.diagnostic(
          `kill after ${at.acknowledged} acknowledged batches (target ${target}) with ${at.inFlight} in flight; ` +
            `${load.sent.size - 1} batches sent, ${found} found whole after the restart; ${load.stale} stale If-Match resends`,
        );
      } finally {
        await server.stop('SIGKILL');
        await db.drop();
      }
    });
  });
}
