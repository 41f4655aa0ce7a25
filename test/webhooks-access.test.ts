/**
 * Who may manage webhooks: a write key only, reads included (a read key and an account's
 * token get 403, no key 401); where no keys are configured, anyone, as on every route. The
 * method override carries PUT and DELETE here as everywhere.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { body, problem, useApp } from './helpers/app.js';
import { type Credential, withKeys } from './helpers/keys.js';
import { openShop, type Shop, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, sqliteKind } from './helpers/stores.js';
import { HOOK_URL, hook } from './helpers/webhook-api.js';

const PATHS: [string, 'GET' | 'POST' | 'PUT' | 'DELETE', object?][] = [
  ['/webhooks/', 'GET'],
  ['/webhooks/', 'POST', { url: HOOK_URL, collections: ['users'] }],
  ['/webhook/1/', 'GET'],
  ['/webhook/1/', 'PUT', { url: HOOK_URL, collections: ['users'] }],
  ['/webhook/1/', 'DELETE'],
  ['/webhook/1/secret/', 'POST'],
  ['/webhook/1/deliveries/', 'GET'],
  ['/webhook/1/replay/', 'POST', { since: '2026-01-01T00:00:00Z' }],
];

describe('webhooks: write keys only', () => {
  const ctx = useApp(sqliteKind, shopSettings());
  let shop: Shop;

  it('refuses a read key and an account (403) and no key (401), on every route', async () => {
    shop = await openShop(ctx.app);
    for (const [url, method, payload] of PATHS) {
      for (const [credential, status] of [
        ['read', 403],
        ['none', 401],
      ] as [Credential, number][]) {
        problem(await hook(ctx.app, method, url, payload, credential), status);
      }
      const token = { authorization: `Bearer ${shop.people.sam.token}` };
      const asAccount = await ctx.app.inject({
        method,
        url,
        headers: { ...token, 'content-type': 'application/json' },
        ...(payload && { payload }),
      });
      problem(asAccount, 403, 'forbidden');
    }
    assert.equal((await hook(ctx.app, 'GET', '/webhooks/')).statusCode, 200);
  });
});

describe('webhooks without keys', () => {
  const ctx = useApp(sqliteKind);
  it('are open, as every route is', async () => {
    const made = await hook(ctx.app, 'POST', '/webhooks/', { url: HOOK_URL, collections: ['users'] }, 'none');
    assert.equal(made.statusCode, 201, made.body);
  });
});

for (const kind of STORE_KINDS) {
  describe(`webhooks through the method override (${kind.name})`, () => {
    const ctx = useApp(kind, withKeys());
    for (const header of ['HTTP-X-HTTP-METHOD', 'X-HTTP-Method', 'X-HTTP-Method-Override']) {
      it(`tunnels PUT and DELETE through POST with ${header}, and needs a write key for them`, async () => {
        const made = body<{ id: number }>(
          await hook(ctx.app, 'POST', '/webhooks/', { url: HOOK_URL, collections: ['users'] }),
        );
        const path = `/webhook/${made.id}/`;
        const change = { url: `${HOOK_URL}/v2`, collections: ['products'] };
        problem(await hook(ctx.app, 'POST', path, change, 'read', { [header]: 'PUT' }), 403, 'forbidden');
        const put = await hook(ctx.app, 'POST', path, change, 'write', { [header]: 'PUT' });
        assert.equal(put.statusCode, 200, put.body);
        assert.deepEqual(body(put).collections, ['products']);
        problem(await hook(ctx.app, 'GET', path, undefined, 'read', { [header]: 'DELETE' }), 403, 'forbidden');
        assert.equal((await hook(ctx.app, 'POST', path, undefined, 'write', { [header]: 'DELETE' })).statusCode, 204);
        problem(await hook(ctx.app, 'GET', path), 404, 'not-found');
      });
    }
  });
}
