/**
 * `Idempotency-Key`s on creates that carry a password, on both stores, with the example shop:
 * a retry replays only with the same password, the fingerprint is a digest keyed by a
 * secret the database keeps (so every instance on it recognises a retry, and it holds no
 * password that could be guessed against it), and two clients without credentials never
 * share a key. Before, a sign-up replayed with another password was told `201`
 * `Idempotent-Replayed: true`, and every anonymous client shared one set of keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pg from 'pg';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { body, JSON_HEADERS, problem } from './helpers/app.js';
import { shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/** Runs `sql` on the test database itself, as a look behind the store. */
async function onDatabase(kind: string, db: TestDatabase, text: string): Promise<Record<string, unknown>[]> {
  if (kind === 'sqlite') {
    const sqlite = new Database(db.url.slice('sqlite:'.length));
    try {
      const prepared = sqlite.prepare(text);
      if (prepared.reader) return prepared.all() as Record<string, unknown>[];
      prepared.run();
      return [];
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

for (const kind of STORE_KINDS) {
  describe(`Idempotency-Keys of creates with a password (${kind.name})`, () => {
    let db: TestDatabase;
    const apps: FastifyInstance[] = [];
    /** Another instance of the server on the suite's database, as a second process would be. */
    const instance = async () => {
      const config = defaultConfig({ maxEventLoopDelay: 0, ...shopSettings(), databaseUrl: db.url });
      const app = await buildApp({ config, logStream: false });
      apps.push(app);
      return app;
    };
    before(async () => {
      db = await kind.create();
    });
    after(async () => {
      for (const app of apps) await app.close();
      await db?.drop();
    });

    /** A sign-up without credentials, with `key`, from `address` (inject's own by default). */
    const signUp = (app: FastifyInstance, key: string, fields: Record<string, unknown>, address?: string) =>
      app.inject({
        method: 'POST',
        url: '/user/',
        headers: { ...JSON_HEADERS, 'idempotency-key': key },
        payload: fields,
        ...(address && { remoteAddress: address }),
      } as InjectOptions);
    const signIn = (app: FastifyInstance, email: string, password: string) =>
      app.inject({ method: 'POST', url: '/users/auth/', headers: JSON_HEADERS, payload: { email, password } });

    it('replays a sign-up only with the password it was sent with', async () => {
      const app = await instance();
      const ada = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
      const first = await signUp(app, 'sign-up-1', ada);
      assert.equal(first.statusCode, 201, first.body);
      const again = await signUp(app, 'sign-up-1', ada);
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(body(again).id, body(first).id);
      const other = await signUp(app, 'sign-up-1', { ...ada, password: 'another password' });
      problem(other, 422, 'idempotency-key-reused');
      assert.equal((await signIn(app, ada.email, 'another password')).statusCode, 401);
      assert.equal((await signIn(app, ada.email, ada.password)).statusCode, 200);
    });

    it("keeps clients without credentials apart: neither replays nor blocks the other's key", async () => {
      const app = await instance();
      const eve = { name: 'Eve', email: 'eve@example.com', password: 'eve eve eve eve' };
      const first = await signUp(app, 'shared-key', eve, '10.0.0.1');
      assert.equal(first.statusCode, 201, first.body);
      // The same request from elsewhere runs as its own: the email is taken, and nothing of Eve's comes back.
      const same = await signUp(app, 'shared-key', eve, '10.0.0.2');
      problem(same, 409);
      assert.equal(same.headers['idempotent-replayed'], undefined);
      const frank = await signUp(app, 'shared-key', { ...eve, name: 'Frank', email: 'frank@example.com' }, '10.0.0.2');
      assert.equal(frank.statusCode, 201, frank.body);
      assert.equal(frank.headers['idempotent-replayed'], undefined);
      assert.notEqual(body(frank).id, body(first).id);
      const replayed = await signUp(app, 'shared-key', eve, '10.0.0.1');
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(body(replayed).id, body(first).id);
    });

    it("fingerprints with the database's secret: another instance replays, no password is kept", async () => {
      const [one, two] = [await instance(), await instance()];
      const grace = { name: 'Grace', email: 'grace@example.com', password: 'cobol forever and ever' };
      assert.equal((await signUp(one, 'two-instances', grace)).statusCode, 201);
      const retried = await signUp(two, 'two-instances', grace);
      assert.equal(retried.headers['idempotent-replayed'], 'true', retried.body);
      problem(await signUp(two, 'two-instances', { ...grace, password: 'cobol never again' }), 422);

      const batchOf = (password: string) => [
        { method: 'POST', path: '/user/', body: { name: 'Alan', email: 'alan@example.com', password } },
      ];
      const batch = (app: FastifyInstance, password: string) =>
        app.inject({
          method: 'POST',
          url: '/batch/',
          headers: { ...JSON_HEADERS, 'idempotency-key': 'a-batch' },
          payload: batchOf(password),
        });
      assert.equal((await batch(one, 'enigma machine')).statusCode, 200);
      assert.equal((await batch(two, 'enigma machine')).headers['idempotent-replayed'], 'true');
      problem(await batch(two, 'bombe machine'), 422, 'idempotency-key-reused');

      const kept = JSON.stringify(await onDatabase(kind.name, db, 'SELECT * FROM idempotency_keys'));
      for (const password of [grace.password, 'enigma machine']) assert.ok(!kept.includes(password), password);
      // Keyed by the database's secret: with another one, the same retry is a stranger's request.
      await onDatabase(kind.name, db, "UPDATE server_secrets SET secret = 'b3RoZXI='");
      problem(await signUp(await instance(), 'two-instances', grace), 422, 'idempotency-key-reused');
    });
  });
}
