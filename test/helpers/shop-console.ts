/**
 * The console on the example shop (schemas/shop: accounts and rules) for a browser suite: a
 * SQLite file, the real server process with the keys, Chromium, and a context of its own per
 * test, so that the session kept for the tab starts empty. Call it inside `describe`: it
 * registers the suite's hooks. `seed` writes what the suite needs before the browser starts;
 * `env` adds to the server's environment (servers it needs first, such as a mail server).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, beforeEach } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { API_KEYS } from './keys.js';
import { type RunningServer, startServer } from './server.js';
import { sqliteKind, type TestDatabase } from './stores.js';

export const SHOTS = 'test-artifacts/console';

/** A request to the API itself, with a key or a token, answering the status and the body as JSON.parse gives it. */
export type ShopApi = (
  method: string,
  path: string,
  payload?: unknown,
  bearer?: string,
) => Promise<{ status: number; body: ReturnType<typeof JSON.parse> }>;

export interface ShopConsole {
  /** Set once the suite's `before` has run. */
  server: RunningServer;
  /** This test's page, in a fresh context. */
  page: Page;
  /** The errors every page threw, for a test to assert none. */
  pageErrors: string[];
  api: ShopApi;
}

export function shopConsole(
  seed: (api: ShopApi) => Promise<void>,
  env: () => Promise<Record<string, string>> = async () => ({}),
): ShopConsole {
  let db: TestDatabase | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  const api: ShopApi = async (method, path, payload, bearer) => {
    const response = await fetch(`${shop.server.url}${path}`, {
      method,
      headers: {
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const shop = { pageErrors: [] as string[], api } as ShopConsole;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await sqliteKind.create();
    shop.server = await startServer({
      DATABASE_URL: db.url,
      SCHEMAS: 'schemas/shop',
      API_KEYS,
      PASSWORD_HASH_COST: '10,8,1',
      ...(await env()),
    });
    await seed(api);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    assert.equal(await shop.server?.stop(), 0);
    await db?.drop();
  });

  beforeEach(async () => {
    await context?.close();
    context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 900 } });
    shop.page = await context.newPage();
    shop.page.on('pageerror', (error) => shop.pageErrors.push(error.message));
  });
  return shop;
}
