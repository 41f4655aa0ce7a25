/**
 * Slow queries never hold other requests up, on real server processes of both stores: a
 * read by id, /healthz and /readyz answer while searches over 100,000 products run; every
 * statement has a time budget; costly queries are capped per client and in all; and on
 * SQLite a write lock held by another process is waited for off the event loop.
 *
 * Nothing here measures time: each test asserts which answers come first, or what comes back.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import Database from '../src/store/sqlite/sqlite-library.js';
import { insertRecords } from './helpers/seed.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { STORE_KINDS, sqliteKind, type TestDatabase, type TestStoreKind } from './helpers/stores.js';

const PRODUCTS = 100_000;
/**
 * Text no product holds, too short for the search index (a trigram): a search that reads
 * every record's strings and finds nothing.
 */
const NOWHERE = '/products/?q=zq';

/**
 * A database of `kind` holding one user and PRODUCTS products, made once for the file: the
 * server makes the tables and the user, then the products go in straight.
 */
async function seededDatabase(kind: TestStoreKind): Promise<TestDatabase> {
  const database = await kind.create();
  const server = await startServer({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0' });
  const made = await fetch(`${server.url}/user/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name":"Ada"}',
  });
  assert.equal(made.status, 201);
  assert.equal(await server.stop(), 0);
  await insertRecords(kind.name, database, 'products', PRODUCTS, {
    sqlite: `json_object('name', 'product ' || i, 'note', printf('%.1000c', 'x'))`,
    postgres: `jsonb_build_object('name', 'product ' || i, 'note', repeat('x', 1000))`,
  });
  return database;
}

const seededDatabases = new Map<TestStoreKind, Promise<TestDatabase>>();
after(async () => {
  for (const database of seededDatabases.values()) await (await database).drop();
});

/** A server on a copy of the seeded database of `kind`. */
async function seeded(kind: TestStoreKind, env: Record<string, string>) {
  if (!seededDatabases.has(kind)) seededDatabases.set(kind, seededDatabase(kind));
  const database = await ((await seededDatabases.get(kind)) as TestDatabase).copy();
  const server = await startServer({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0', ...env });
  return {
    server,
    async close() {
      await server.stop('SIGKILL');
      await database.drop();
    },
  };
}

/** Sends GET `path`, noting in `order` when its answer has fully arrived. */
async function timed(server: RunningServer, path: string, order: string[], label = path) {
  const response = await fetch(`${server.url}${path}`);
  const body = await response.text();
  order.push(label);
  return { status: response.status, headers: response.headers, body };
}

for (const kind of STORE_KINDS) {
  describe(`slow queries (${kind.name})`, () => {
    it('answers a read by id, /healthz and /readyz while four searches over 100,000 products run', async () => {
      // On PostgreSQL the cap on costly queries (4) keeps connections of the pool (6) free
      // for cheap ones; on SQLite the searches run on the read threads.
      const env = { MAX_COSTLY_QUERIES: '4', MAX_COSTLY_QUERIES_PER_CLIENT: '0', DATABASE_POOL_SIZE: '6' };
      const { server, close } = await seeded(kind, env);
      try {
        const order: string[] = [];
        const searches = [1, 2, 3, 4].map((n) => timed(server, `${NOWHERE}&n=${n}`, order, 'search'));
        const others = await Promise.all([
          timed(server, '/user/1/', order),
          timed(server, '/healthz', order),
          kind.name === 'sqlite' ? timed(server, '/readyz', order) : undefined,
        ]);
        for (const other of others) if (other) assert.equal(other.status, 200, other.body);
        const found = await Promise.all(searches);
        for (const search of found) assert.deepEqual([search.status, search.body], [200, '[]']);
        const firstSearch = order.indexOf('search');
        for (const path of ['/user/1/', '/healthz']) {
          assert.ok(order.indexOf(path) < firstSearch, `${path} answered before any search: ${order.join(', ')}`);
        }
      } finally {
        await close();
      }
    });

    it('answers /readyz on its own connection while the searches hold every pooled one', async () => {
      const env = { MAX_COSTLY_QUERIES: '0', MAX_COSTLY_QUERIES_PER_CLIENT: '0', DATABASE_POOL_SIZE: '2' };
      const { server, close } = await seeded(kind, env);
      try {
        const order: string[] = [];
        const searches = [1, 2, 3, 4].map((n) => timed(server, `${NOWHERE}&n=${n}`, order, 'search'));
        assert.equal((await timed(server, '/readyz', order)).status, 200);
        await Promise.all(searches);
        assert.equal(order[0], '/readyz', order.join(', '));
      } finally {
        await close();
      }
    });

    it('stops a statement past DATABASE_STATEMENT_TIMEOUT with a 503 problem and Retry-After, and goes on', async () => {
      const { server, close } = await seeded(kind, { DATABASE_STATEMENT_TIMEOUT: '100' });
      try {
        for (const path of [NOWHERE, '/products/?sort=-note,name', `${NOWHERE}&sort=name`]) {
          const stopped = await timed(server, path, []);
          assert.equal(stopped.status, 503, `${path}: ${stopped.body}`);
          assert.equal(stopped.headers.get('retry-after'), '5');
          assert.match(stopped.headers.get('content-type') ?? '', /^application\/problem\+json/);
          assert.match(JSON.parse(stopped.body).type, /\/query-timeout$/);
        }
        // Cheap reads within the budget still answer, and the server lives.
        assert.equal((await timed(server, '/user/1/', [])).status, 200);
        assert.equal((await timed(server, '/products/?limit=5', [])).status, 200);
        assert.equal(server.process.exitCode, null);
      } finally {
        await close();
      }
    });

    it('caps a scan but never an indexed filtered page: one client may send any number of those at once', async () => {
      const { server, close } = await seeded(kind, { MAX_COSTLY_QUERIES: '4', MAX_COSTLY_QUERIES_PER_CLIENT: '2' });
      try {
        // Products' price is indexed: a range of it, in its order, is read from the index and
        // stops at the limit. A filter on name, which no index holds, reads every product.
        const indexed = '/products/?price[gte]=10&price[lte]=20&sort=price&limit=100';
        const scans = [1, 2, 3].map((n) => timed(server, `/products/?name=nothing&n=${n}`, []));
        const pages = await Promise.all(Array.from({ length: 20 }, () => timed(server, indexed, [])));
        assert.deepEqual(new Set(pages.map((page) => page.status)), new Set([200]));
        const scanned = await Promise.all(scans);
        assert.deepEqual(
          scanned.map((answer) => answer.status).sort(),
          [200, 200, 429],
          'the third scan at once is refused',
        );
      } finally {
        await close();
      }
    });

    it('refuses a client its third costly query at once (429), and any past the total (503)', async () => {
      const { server, close } = await seeded(kind, { MAX_COSTLY_QUERIES: '3', MAX_COSTLY_QUERIES_PER_CLIENT: '2' });
      try {
        const answers = await Promise.all([1, 2, 3].map((n) => timed(server, `${NOWHERE}&n=${n}`, [])));
        const refused = answers.filter((answer) => answer.status === 429);
        assert.equal(refused.length, 1, answers.map((answer) => answer.status).join(', '));
        assert.equal(refused[0]?.headers.get('retry-after'), '1');
        assert.match(JSON.parse(refused[0]?.body ?? '{}').type, /\/too-many-costly-queries$/);
        assert.equal(answers.filter((answer) => answer.status === 200).length, 2);
        // Cheap pages are no costly queries: never refused.
        const cheap = await Promise.all([1, 2, 3, 4].map(() => timed(server, '/products/?limit=3', [])));
        assert.deepEqual(
          cheap.map((answer) => answer.status),
          [200, 200, 200, 200],
        );
      } finally {
        await close();
      }
      const total = await seeded(kind, { MAX_COSTLY_QUERIES: '1', MAX_COSTLY_QUERIES_PER_CLIENT: '0' });
      try {
        const answers = await Promise.all([1, 2].map((n) => timed(total.server, `${NOWHERE}&n=${n}`, [])));
        assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 503]);
        const overloaded = answers.find((answer) => answer.status === 503);
        assert.match(JSON.parse(overloaded?.body ?? '{}').type, /\/overloaded$/);
        assert.equal(overloaded?.headers.get('retry-after'), '1');
      } finally {
        await total.close();
      }
    });

    it('gives one address only its share of the costly queries, however many accounts it signs in with', async () => {
      // The shop's accounts over the same products; one address may run a quarter of four,
      // and no less than a client's one: one.
      const { server, close } = await seeded(kind, {
        SCHEMAS: 'schemas/shop',
        PASSWORD_HASH_COST: '10,8,1',
        TRUST_PROXY: '127.0.0.1',
        MAX_COSTLY_QUERIES: '4',
        MAX_COSTLY_QUERIES_PER_CLIENT: '1',
      });
      try {
        const headers = (address: string, token?: string) => ({
          'content-type': 'application/json',
          'x-forwarded-for': address,
          ...(token && { authorization: `Bearer ${token}` }),
        });
        const account = async (address: string, name: string) => {
          const payload = JSON.stringify({ email: `${name}@example.com`, password: `${name} knows this one` });
          const post = (url: string, body: string) =>
            fetch(`${server.url}${url}`, { method: 'POST', headers: headers(address), body });
          assert.equal((await post('/user/', JSON.stringify({ ...JSON.parse(payload), name }))).status, 201);
          return ((await (await post('/users/auth/', payload)).json()) as { token: string }).token;
        };
        const [one, two, other] = [
          await account('203.0.113.66', 'mal'),
          await account('203.0.113.66', 'mel'),
          await account('198.51.100.7', 'ada'),
        ];
        const search = async (address: string, token: string) =>
          (await fetch(`${server.url}${NOWHERE}`, { headers: headers(address, token) })).status;
        const [first, second, bystander] = await Promise.all([
          search('203.0.113.66', one),
          search('203.0.113.66', two),
          search('198.51.100.7', other),
        ]);
        assert.deepEqual([first, second].sort(), [200, 429], 'the address’s second search at once is refused');
        assert.equal(bystander, 200, 'another address’s search runs');
      } finally {
        await close();
      }
    });
  });
}

describe('a write lock another process holds (sqlite)', () => {
  it('is waited for off the event loop: /healthz answers meanwhile, the write lands once it is free', async () => {
    const database = await sqliteKind.create();
    const server = await startServer({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0' });
    const other = new Database(database.url.slice('sqlite:'.length));
    try {
      other.exec('BEGIN IMMEDIATE');
      const order: string[] = [];
      const write = fetch(`${server.url}/user/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"waits"}',
      }).then(async (response) => {
        order.push('write');
        return { status: response.status, body: await response.text() };
      });
      // The write is queued and retried between turns of the event loop, which serves on.
      for (let i = 0; i < 5; i++) assert.equal((await timed(server, '/healthz', order, 'health')).status, 200);
      assert.equal((await timed(server, '/users/', order, 'list')).status, 200);
      assert.deepEqual(order, ['health', 'health', 'health', 'health', 'health', 'list'], 'the write still waits');
      other.exec('COMMIT');
      const written = await write;
      assert.equal(written.status, 201, written.body);
      assert.equal(JSON.parse(written.body).name, 'waits');
    } finally {
      other.close();
      await server.stop('SIGKILL');
      await database.drop();
    }
  });

  it('fails the write with a 503 problem once it has waited DATABASE_LOCK_TIMEOUT, and writes again after', async () => {
    const database = await sqliteKind.create();
    const server = await startServer({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0', DATABASE_LOCK_TIMEOUT: '100' });
    const other = new Database(database.url.slice('sqlite:'.length));
    const post = () =>
      fetch(`${server.url}/user/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    try {
      other.exec('BEGIN IMMEDIATE');
      const refused = await post();
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.match(((await refused.json()) as { type: string }).type, /\/service-unavailable$/);
      other.exec('ROLLBACK');
      assert.equal((await post()).status, 201);
      assert.equal(
        ((await (await fetch(`${server.url}/users/`)).json()) as unknown[]).length,
        1,
        'nothing else written',
      );
    } finally {
      other.close();
      await server.stop('SIGKILL');
      await database.drop();
    }
  });
});
