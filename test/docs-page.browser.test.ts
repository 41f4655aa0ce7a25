/**
 * The reference page (/docs/) over the example shop, in real Chromium against the real server
 * process: the collections first, with the HEAD and tunnelled forms in sections of their own
 * at the end, folded; an introduction that leads with what the API does; nothing wider than
 * a 390 px phone, even with an operation open and run; the reader's dark colour scheme.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './helpers/browser.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { sqliteKind, type TestDatabase } from './helpers/stores.js';

const SHOTS = 'test-artifacts/console';
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head'];

interface Document {
  tags: { name: string }[];
  paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
}

describe('the reference page in Chromium', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let browser: Browser;
  let doc: Document;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  /** What Chromium reports the page's Content-Security-Policy blocked: nothing, ever. */
  const blocked: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await sqliteKind.create();
    server = await startServer({ DATABASE_URL: db.url, SCHEMAS: 'schemas/shop' });
    doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    assert.equal(await server?.stop(), 0);
    await db?.drop();
  });

  /** The page in a context of its own (a viewport, a colour scheme), once its first operation shows. */
  const open = async (options: Parameters<Browser['newContext']>[0], hash = ''): Promise<Page> => {
    const context = await browser.newContext(options);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy/.test(message.text())) blocked.push(message.text());
    });
    await page.goto(`${server.url}/docs/${hash}`);
    await page.locator('.opblock').first().waitFor();
    return page;
  };
  /** The operationIds the document gives `tag`. */
  const operationsOf = (tag: string) =>
    Object.values(doc.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([method, operation]) => METHODS.includes(method) && operation.tags?.includes(tag))
        .map(([, operation]) => operation.operationId),
    );
  const shownIds = (page: Page) =>
    page.evaluate(`[...document.querySelectorAll('.opblock')].map((block) => block.id.split('-').slice(2).join('-'))`);

  it('shows the collections first, and the HEAD and tunnelled forms folded in sections of their own at the end', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const tags = doc.tags.map((tag) => tag.name);
    assert.deepEqual(tags, ['orders', 'products', 'users', 'batch', 'service', 'webhooks', 'HEAD', 'method override']);
    assert.deepEqual(
      await page.evaluate(`[...document.querySelectorAll('.opblock-tag')].map((t) => t.dataset.tag)`),
      tags,
    );
    const all = Object.values(doc.paths).flatMap((item) => Object.keys(item).filter((m) => METHODS.includes(m)));
    const folded = [...operationsOf('HEAD'), ...operationsOf('method override')];
    const shown = (await shownIds(page)) as string[];
    // Over the shop: 87 operations in all, 22 HEAD and 15 tunnelled forms folded, 50 shown (who am
    // I is a GET of /users/auth/ now, not the tunnelled form of its POST; products' and orders'
    // files are downloaded, with a HEAD each, and users ask for file tokens; webhooks: 9 shown,
    // 3 HEAD, 5 tunnelled).
    assert.deepEqual([all.length, folded.length, shown.length], [87, 37, 50]);
    assert.deepEqual(shown.sort(), tags.slice(0, 6).flatMap(operationsOf).sort());
    assert.equal(await page.locator('.opblock-head').count(), 0, 'no HEAD among the collections');
    for (const id of ['listOrders', 'createOrder', 'readOrder', 'modifyOrder', 'deleteOrder', 'signInUser']) {
      assert.ok(shown.includes(id), id);
    }
    // A click unfolds a section, as any tag's; a link into one opens the page with it unfolded.
    await page.locator('.opblock-tag[data-tag="HEAD"]').click();
    await page.locator('#operations-HEAD-readOrderHead').waitFor();
    const linked = await open({ viewport: { width: 1280, height: 900 } }, '#/method_override/tunnelOrder');
    await linked.locator('#operations-method_override-tunnelOrder').waitFor();
    assert.equal(((await shownIds(linked)) as string[]).length, 50 + operationsOf('method override').length);
    await page.screenshot({ path: `${SHOTS}/docs-sections.png` });
  });

  it('leads with the collections and what the API does; the override comes last', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const paragraphs = await page.locator('.info .description p').allTextContents();
    assert.match(paragraphs[0] ?? '', /^Orders, products and users over REST/);
    assert.match(paragraphs[1] ?? '', /^Each collection is a section below: list its records/);
    const override = paragraphs.findIndex((text) => text.includes('HTTP-X-HTTP-METHOD'));
    assert.equal(override, paragraphs.length - 1, paragraphs.join('\n'));
    assert.match(paragraphs[override] ?? '', /^Two sections at the end hold the other forms/);
  });

  it('fits a 390 px phone: at rest, with an operation open, and with its answer shown', async () => {
    const page = await open({ viewport: { width: 390, height: 844 } });
    const width = () => page.evaluate('document.documentElement.scrollWidth') as Promise<number>;
    assert.ok((await width()) <= 390, `${await width()} px wide`);
    // The list of orders: the most parameters (a filter per field), and a table of answers.
    const list = page.locator('#operations-orders-listOrders');
    await list.locator('.opblock-summary-control').click();
    await list.locator('.responses-table').first().waitFor();
    assert.ok((await width()) <= 390, `${await width()} px wide with listOrders open`);
    const products = page.locator('#operations-products-listProducts');
    await products.locator('.opblock-summary-control').click();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${server.url}/products/`)),
      products.getByRole('button', { name: 'Execute' }).click(),
    ]);
    assert.equal(response.status(), 200);
    await products.locator('.live-responses-table').waitFor();
    assert.ok((await width()) <= 390, `${await width()} px wide with an answer shown`);
    await page.screenshot({ path: `${SHOTS}/docs-phone.png` });
  });

  it("follows the reader's colour scheme with Swagger UI's dark theme", async () => {
    /** The page's background, as the share of full brightness of its brightest channel. */
    const brightness = async (page: Page) => {
      const colour = (await page.evaluate('getComputedStyle(document.body).backgroundColor')) as string;
      const channels = (colour.match(/\d+/g) ?? []).slice(0, 3).map(Number);
      assert.equal(channels.length, 3, colour);
      return Math.max(...channels) / 255;
    };
    const dark = await open({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    assert.ok((await brightness(dark)) < 0.2, 'a dark background');
    assert.equal(await dark.evaluate('document.documentElement.classList.contains("dark-mode")'), true);
    const text = (await dark.evaluate('getComputedStyle(document.querySelector(".info .title")).color')) as string;
    assert.ok(Math.max(...(text.match(/\d+/g) ?? []).slice(0, 3).map(Number)) > 200, `light text: ${text}`);
    await dark.screenshot({ path: `${SHOTS}/docs-dark.png` });
    const light = await open({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    assert.ok((await brightness(light)) > 0.9, 'a light background');
    assert.equal(await light.evaluate('document.documentElement.classList.contains("dark-mode")'), false);
  });

  it('broke none of its own policy, and raised no script error', async () => {
    for (const context of contexts) await context.close();
    assert.deepEqual(blocked, []);
    assert.deepEqual(pageErrors, []);
  });
});
