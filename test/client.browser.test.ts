/**
 * The client in Chromium, loaded as an ES module by a page of another origin, as a web
 * application would: its requests cross CORS (preflights for the override, If-Match and
 * Idempotency-Key headers) to a real restock on each store, direct and tunnelled, and
 * signed in to the example shop.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import ts from 'typescript';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { launchChromium } from './helpers/browser.js';
import { authorization } from './helpers/keys.js';
import { PASSWORDS, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, sqliteKind, type TestDatabase } from './helpers/stores.js';

const CLIENT = new URL('../packages/client/src/', import.meta.url);

const PAGE = `<!doctype html><meta charset="utf-8"><title>client</title>
<script type="module">
  import { createClient, ProblemError } from './client/index.js';
  window.exercise = async (baseUrl, tunnel) => {
    const products = createClient({ baseUrl, ...(tunnel && { tunnel }) }).collection('products');
    const made = await products.create({ name: 'in the browser', price: 3 });
    const read = await products.get(made.id);
    const changed = await products.update(read, { price: 4 }, { ifMatch: read });
    const seen = [];
    for await (const p of products.list({ filter: { name: 'in the browser' }, limit: 1 })) seen.push(p.id);
    const gone = await products.delete(changed, { ifMatch: changed });
    let after;
    try { await products.get(made.id); } catch (e) { after = e instanceof ProblemError ? e.status : String(e); }
    return { price: changed.price, seen: seen.includes(made.id), gone: gone.id === made.id, after };
  };
  window.signedIn = async (baseUrl, productId) => {
    const shop = createClient({ baseUrl, tunnel: 'post' });
    const me = await shop.auth().signIn({ email: 'ada@example.com', password: 'correct horse battery' });
    const made = await shop.collection('orders').create({ items: [{ productId, quantity: 1 }], status: 'placed' });
    const owners = (await shop.collection('orders').page()).records.map((o) => o.userId);
    const kept = shop.auth().session.refreshToken;
    await shop.auth().signOut();
    let resumed;
    try { await shop.auth().resume(kept); } catch (e) { resumed = e instanceof ProblemError ? e.status : String(e); }
    return { mine: made.userId === me.id, owners: [...new Set(owners)].length, resumed };
  };
</script>`;

/** Serves the page, and packages/client/src/*.ts as JavaScript modules (transpiled as they are asked for). */
function pageServer(): Server {
  return createServer((request, response) => {
    const name = /^\/client\/([a-z-]+)\.js$/.exec(request.url ?? '')?.[1];
    if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    } else if (name) {
      const source = readFileSync(new URL(`${name}.ts`, CLIENT), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      });
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(outputText);
    } else {
      response.writeHead(404).end();
    }
  });
}

describe('the client in Chromium', () => {
  let browser: Browser;
  let pages: Server;
  let pageOrigin: string;
  before(async () => {
    browser = await launchChromium();
    pages = pageServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => pages.once('listening', resolve));
    pageOrigin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    pages?.close();
  });

  for (const kind of STORE_KINDS) {
    describe(kind.name, () => {
      let db: TestDatabase;
      let app: FastifyInstance;
      let origin: string;
      before(async () => {
        db = await kind.create();
        app = await buildApp({
          config: defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0 }),
          logStream: false,
        });
        origin = await app.listen({ host: '127.0.0.1', port: 0 });
      });
      after(async () => {
        await app?.close();
        await db?.drop();
      });

      for (const tunnel of [undefined, 'post', 'get'] as const) {
        it(`runs every operation from a page of another origin${tunnel ? `, tunnelled through ${tunnel}` : ''}`, async () => {
          const page = await browser.newPage();
          const errors: string[] = [];
          page.on('pageerror', (error) => errors.push(error.message));
          try {
            await page.goto(`${pageOrigin}/`);
            await page.waitForFunction(() => 'exercise' in globalThis);
            const result = await page.evaluate(
              ([baseUrl, how]) =>
                (globalThis as unknown as { exercise: (b: string, t?: string) => Promise<unknown> }).exercise(
                  baseUrl,
                  how,
                ),
              [origin, tunnel] as const,
            );
            assert.deepEqual(result, { price: 4, seen: true, gone: true, after: 404 });
            assert.deepEqual(errors, []);
          } finally {
            await page.close();
          }
        });
      }
    });
  }

  describe('signed in to the example shop', () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let origin: string;
    let productId: number;
    before(async () => {
      db = await sqliteKind.create();
      app = await buildApp({
        config: defaultConfig({ ...shopSettings(), databaseUrl: db.url, maxEventLoopDelay: 0 }),
        logStream: false,
      });
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
      const product = await app.inject({
        method: 'POST',
        url: '/product/',
        headers: authorization('write'),
        payload: { name: 'Teapot' },
      });
      productId = product.json<{ id: number }>().id;
      const ada = { name: 'Ada', email: 'ada@example.com', password: PASSWORDS.ada };
      assert.equal((await app.inject({ method: 'POST', url: '/user/', payload: ada })).statusCode, 201);
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    it('sends its token across origins, and signs out through POST', async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${pageOrigin}/`);
        await page.waitForFunction(() => 'signedIn' in globalThis);
        const result = await page.evaluate(
          ([baseUrl, id]) =>
            (globalThis as unknown as { signedIn: (b: string, p: number) => Promise<unknown> }).signedIn(baseUrl, id),
          [origin, productId] as const,
        );
        assert.deepEqual(result, { mine: true, owners: 1, resumed: 401 });
      } finally {
        await page.close();
      }
    });
  });
});
