/**
 * A webhook's kept deliveries through the API: newest first, by state, page after page by
 * `Link`, a body only when asked for and never a secret; replaying one sends it again.
 * The rows are stored as the delivery stores them (a lease, then `settle`), on the app's
 * database before the app opens it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/open-store.js';
import { body, type DatabaseContext, problem, useDatabase } from './helpers/app.js';
import { withKeys } from './helpers/keys.js';
import { type ContractRecorder, checkAgainstDocument, itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';
import { delivery, HOOK_URL, hook, keepDeliveries, secret } from './helpers/webhook-api.js';

type Listed = Record<string, unknown> & { messageId: string; state: string };

for (const kind of STORE_KINDS) {
  describe(`webhook deliveries (${kind.name})`, () => {
    const ctx = useDatabase(kind) as DatabaseContext & { app: FastifyInstance; contract?: ContractRecorder };
    let id: number;
    const now = Date.now();

    // The rows go in before the app starts, on a paused webhook: its delivery leaves them be.
    before(async () => {
      const store = await openStore(ctx.db.url, loadCatalog(defaultConfig()));
      const events = ['created', 'updated', 'deleted'] as const;
      const spec = { url: HOOK_URL, collections: ['products'], events: [...events], filter: null };
      id = (await store.webhooks.create({ ...spec, secret: secret() }, now)).id;
      await store.webhooks.pause(id, 'held by the test', now);
      await keepDeliveries(store.webhooks, id, [
        delivery(id, 1, 'delivered', now - 4000),
        delivery(id, 2, 'dead', now - 3000),
        delivery(id, 3, 'delivered', now - 2000),
        delivery(id, 4, 'retrying', now - 1000),
      ]);
      await store.close();
      const config = defaultConfig({ ...withKeys(), maxEventLoopDelay: 0, databaseUrl: ctx.db.url });
      ctx.app = ctx.holding(await buildApp({ config, logStream: false }));
      ctx.contract = checkAgainstDocument(ctx.app);
      await ctx.app.ready();
      await ctx.contract.load();
    });

    it('lists them newest first, without bodies unless asked, and never a secret', async () => {
      const listed = await hook(ctx.app, 'GET', `/webhook/${id}/deliveries/`);
      assert.equal(listed.statusCode, 200, listed.body);
      const page = body<Listed[]>(listed);
      assert.deepEqual(
        page.map((one) => [one.messageId, one.state]),
        [
          ['evt_products_4', 'retrying'],
          ['evt_products_3', 'delivered'],
          ['evt_products_2', 'dead'],
          ['evt_products_1', 'delivered'],
        ],
      );
      assert.deepEqual(page[0], {
        messageId: 'evt_products_4',
        collection: 'products',
        seq: 4,
        recordId: 4,
        type: 'products.updated',
        state: 'retrying',
        attempts: 3,
        status: 500,
        error: 'answered 500',
        occurredAt: new Date(now - 2000).toISOString(),
        firstAttemptAt: new Date(now - 1500).toISOString(),
        lastAttemptAt: new Date(now - 1000).toISOString(),
        nextAt: new Date(now + 4000).toISOString(),
      });
      assert.ok(!listed.body.includes('whsec_'));
      const withBodies = body<Listed[]>(await hook(ctx.app, 'GET', `/webhook/${id}/deliveries/?body=true&state=dead`));
      assert.deepEqual(
        withBodies.map((one) => (one.body as { data: unknown }).data),
        [{ id: 2 }],
      );
    });

    it('pages by Link', async () => {
      const first = await hook(ctx.app, 'GET', `/webhook/${id}/deliveries/?limit=3`);
      assert.equal(body<Listed[]>(first).length, 3);
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
      assert.ok(next, String(first.headers.link));
      const second = await hook(ctx.app, 'GET', next);
      assert.deepEqual(
        body<Listed[]>(second).map((one) => one.messageId),
        ['evt_products_1'],
      );
      assert.equal(second.headers.link, undefined);
    });

    it('replays a kept delivery, and refuses one it does not keep', async () => {
      const replayed = await hook(ctx.app, 'POST', `/webhook/${id}/replay/`, { delivery: 'evt_products_2' });
      assert.equal(replayed.statusCode, 202, replayed.body);
      assert.deepEqual(body(replayed), { replayed: 'delivery', delivery: 'evt_products_2' });
      const dead = body<Listed[]>(await hook(ctx.app, 'GET', `/webhook/${id}/deliveries/?state=retrying`));
      assert.ok(dead.some((one) => one.messageId === 'evt_products_2'));
      problem(await hook(ctx.app, 'POST', `/webhook/${id}/replay/`, { delivery: 'evt_products_9' }), 404);
    });

    it('refuses a bad query and an unknown webhook', async () => {
      problem(await hook(ctx.app, 'GET', `/webhook/${id}/deliveries/?state=lost`), 400, 'invalid-query');
      problem(await hook(ctx.app, 'GET', `/webhook/${id}/deliveries/?limit=0`), 400, 'invalid-query');
      problem(await hook(ctx.app, 'GET', `/webhook/${id}/deliveries/?before=soon`), 400, 'invalid-query');
      problem(await hook(ctx.app, 'GET', `/webhook/${id + 1}/deliveries/`), 404, 'not-found');
    });

    itKeptTheDocument(ctx);
  });
}
