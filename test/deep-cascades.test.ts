/**
 * Cascades through long chains of records, on both stores: a delete takes a whole chain of
 * a thousand levels in one transaction, and one that would change more than 1,000 records
 * is refused with nothing changed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { MAX_REFERRERS_CHANGED } from '../src/store/sql/delete-referrers.js';
import { problem } from './helpers/app.js';
import { insertRecords } from './helpers/seed.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/** Nodes, each naming its parent: a reference whose delete cascades, or (`false`) a plain number. */
function nodesSchema(reference: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-chains-'));
  const parentId = { type: ['integer', 'null'], ...(reference && { 'x-ref': 'nodes', 'x-on-delete': 'cascade' }) };
  const schema = { type: 'object', 'x-singular': 'node', properties: { parentId } };
  writeFileSync(join(dir, 'nodes.schema.json'), JSON.stringify(schema));
  // A pin keeps its node, and so every node above it, from being deleted.
  const nodeId = { type: 'integer', 'x-ref': 'nodes', 'x-on-delete': 'restrict' };
  const pins = { type: 'object', 'x-singular': 'pin', properties: { nodeId } };
  writeFileSync(join(dir, 'pins.schema.json'), JSON.stringify(pins));
  return dir;
}

/** A chain as long as one delete may take, and one a record longer. */
const LONG = MAX_REFERRERS_CHANGED + 1;
const TOO_LONG = MAX_REFERRERS_CHANGED + 2;

for (const kind of STORE_KINDS) {
  describe(`cascades through long chains (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    const configOf = (reference: boolean) =>
      defaultConfig({ databaseUrl: db.url, schemas: nodesSchema(reference), maxEventLoopDelay: 0, rateLimitMax: 0 });

    before(async () => {
      db = await kind.create();
      // Two chains, of LONG nodes (ids 1 on) and of TOO_LONG (after them), each node the
      // child of the one before, written in one statement while parentId is a plain field.
      // Declaring the reference on the next start links the records already there.
      await (await buildApp({ config: configOf(false), logStream: false })).close();
      const parent = `CASE WHEN i IN (1, ${LONG + 1}) THEN NULL ELSE i - 1 END`;
      await insertRecords(kind.name, db, 'nodes', LONG + TOO_LONG, {
        sqlite: `json_object('parentId', ${parent})`,
        postgres: `jsonb_build_object('parentId', ${parent})`,
      });
      app = await buildApp({ config: configOf(true), logStream: false });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    const count = async () => {
      const page = await app.inject({ url: '/nodes/?limit=1', headers: { prefer: 'count=exact' } });
      return Number(page.headers['x-total-count']);
    };

    it(`refuses a delete that would change more than ${MAX_REFERRERS_CHANGED} records, changing nothing`, async () => {
      const refused = problem(
        await app.inject({ method: 'DELETE', url: `/node/${LONG + 1}/` }),
        409,
        'record-referenced',
      );
      assert.ok(refused.detail);
      assert.equal(await count(), LONG + TOO_LONG);
    });

    it('refuses a delete whose cascade reaches a record a restricting reference holds, naming it', async () => {
      const pin = await app.inject({ method: 'POST', url: '/pin/', payload: { nodeId: LONG } });
      assert.equal(pin.statusCode, 201, pin.body);
      const refused = problem(await app.inject({ method: 'DELETE', url: '/node/1/' }), 409, 'record-referenced');
      assert.deepEqual((refused as unknown as { referrers: unknown }).referrers, [
        { collection: 'pins', id: JSON.parse(pin.body).id, field: 'nodeId' },
      ]);
      assert.equal(await count(), LONG + TOO_LONG);
      assert.equal((await app.inject({ method: 'DELETE', url: `/pin/${JSON.parse(pin.body).id}/` })).statusCode, 200);
    });

    it(`deletes a chain of ${MAX_REFERRERS_CHANGED} levels below its first node, every one`, async () => {
      const deleted = await app.inject({ method: 'DELETE', url: '/node/1/' });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.equal(await count(), TOO_LONG);
      assert.equal((await app.inject({ url: `/node/${LONG}/` })).statusCode, 404, 'the deepest went too');
      assert.equal((await app.inject({ url: `/node/${LONG + 1}/` })).statusCode, 200, 'the other chain stays');
    });
  });
}
