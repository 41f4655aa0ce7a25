/**
 * SPEC §11: `/` answers browsers with the console and API clients with the JSON index;
 * the console's files are served from the package, by the compiled server too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { body, useApp } from './helpers/app.js';
import { startServer } from './helpers/server.js';
import { shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, sqliteKind } from './helpers/stores.js';
import { verifyingShop } from './helpers/verifying-shop.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

for (const kind of STORE_KINDS) {
  describe(`the console at / (${kind.name})`, () => {
    const ctx = useApp(kind);

    it('answers a browser with the page, under a strict Content-Security-Policy, varying on Accept', async () => {
      const page = await ctx.app.inject({ url: '/', headers: { accept: BROWSER_ACCEPT } });
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.match(page.body, /<title>restock console<\/title>/);
      assert.match(String(page.headers.vary), /\bAccept\b/);
      const policy = String(page.headers['content-security-policy']);
      for (const directive of [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ]) {
        assert.ok(policy.includes(directive), directive);
      }
      const head = await ctx.app.inject({ method: 'HEAD', url: '/', headers: { accept: BROWSER_ACCEPT } });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['content-type'], 'text/html; charset=utf-8');
      // Links in mail and a provider's sign-in lead to /console/ (APP_URL's default), whatever the Accept.
      const linked = await ctx.app.inject({ url: '/console/?action=verify&collection=users&token=x' });
      assert.deepEqual([linked.statusCode, linked.body], [200, page.body]);
      assert.equal(linked.headers['content-security-policy'], policy);
    });

    it('answers API clients with the JSON index, also varying on Accept', async () => {
      const accepts = [undefined, '*/*', 'application/json', 'text/html;q=0.5, application/json', 'application/*'];
      for (const accept of accepts) {
        const response = await ctx.app.inject({ url: '/', headers: accept ? { accept } : {} });
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', String(accept));
        assert.match(String(response.headers.vary), /\bAccept\b/);
        assert.equal(body(response).docs, '/docs/');
      }
    });

    it("serves the page's script and style from the package, and nothing else under /console/", async () => {
      const page = (await ctx.app.inject({ url: '/', headers: { accept: 'text/html' } })).body;
      // The page names them under their version (test/compression.test.ts checks their caching).
      const assets = [...page.matchAll(/(?:src|href)="(\/[^"]*)"/g)].map((m) => m[1] as string);
      const unversioned = assets.map((asset) => asset.replace(/^\/console\/[\w-]{16}\//, '/console/'));
      assert.deepEqual(unversioned.sort(), ['/console/console.css', '/console/console.js', '/docs/']);
      for (const asset of assets) assert.equal((await ctx.app.inject({ url: asset })).statusCode, 200, asset);
      const script = await ctx.app.inject({ url: '/console/console.js' });
      assert.equal(script.statusCode, 200);
      assert.match(String(script.headers['content-type']), /javascript/);
      assert.match(script.body, /HTTP-X-HTTP-METHOD/);
      assert.match(
        String((await ctx.app.inject({ url: '/console/console.css' })).headers['content-type']),
        /text\/css/,
      );
      // Every module the script imports, and each one they import, is served beside it.
      const modules = new Set(['console.js']);
      for (const name of modules) {
        const module = await ctx.app.inject({ url: `/console/${name}` });
        assert.equal(module.statusCode, 200, name);
        for (const [, imported] of module.body.matchAll(/from '\.\/([\w-]+\.js)'/g)) modules.add(imported as string);
      }
      for (const name of ['auth.js', 'batch.js', 'files.js', 'webhooks.js', 'webhook-deliveries.js']) {
        assert.ok(modules.has(name), `${name} among ${[...modules].join(', ')}`);
      }
      const missing = await ctx.app.inject({ url: '/console/../package.json' });
      assert.equal(missing.statusCode, 404);
      assert.equal((await ctx.app.inject({ url: '/console/nope.js' })).statusCode, 404);
    });
  });
}

describe('the index of a store with accounts', () => {
  const ctx = useApp(sqliteKind, shopSettings(), { contract: true });

  it('says which collections hold accounts, where they sign in, and with which fields (the console asks)', async () => {
    const index = body<{ collections: Record<string, { auth?: string; signInWith?: string[] }> }>(
      await ctx.app.inject({ url: '/' }),
    );
    assert.deepEqual(
      Object.entries(index.collections).map(([name, links]) => [name, links.auth, links.signInWith]),
      [
        ['orders', undefined, undefined],
        ['products', undefined, undefined],
        ['users', '/users/auth/', ['email']],
      ],
    );
    assert.deepEqual(ctx.contract?.violations, []);
    assert.ok(ctx.contract?.matched.includes('getIndex 200'), 'checked against the OpenAPI document');
  });
});

describe('the index of a store whose accounts verify their email', () => {
  const dir = mkdtempSync(join(tmpdir(), 'restock-verifying-index-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const ctx = useApp(sqliteKind, shopSettings({ schemas: verifyingShop(dir) }), { contract: true });

  it('says so, for the console to tell a sign-up that a link is on its way', async () => {
    const index = body<{ collections: Record<string, { verify?: string }> }>(await ctx.app.inject({ url: '/' }));
    assert.deepEqual(
      Object.entries(index.collections).map(([name, links]) => [name, links.verify]),
      [
        ['orders', undefined],
        ['products', undefined],
        ['users', 'email'],
      ],
    );
    assert.deepEqual(ctx.contract?.violations, []);
  });
});

describe('the compiled server', () => {
  it('finds the console and the reference page when run from dist/, as npm start does', async () => {
    const db = await sqliteKind.create();
    const server = await startServer({ DATABASE_URL: db.url });
    try {
      const page = await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT } });
      assert.match(await page.text(), /restock console/);
      assert.equal((await fetch(`${server.url}/console/console.js`)).status, 200);
      assert.equal((await fetch(`${server.url}/docs/`)).status, 200);
      const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { info: { version: string } };
      assert.match(doc.info.version, /^\d+\.\d+\.\d+/);
    } finally {
      assert.equal(await server.stop(), 0);
      await db.drop();
    }
  });
});
