/**
 * The console signed in to the example shop (schemas/shop, with its accounts and rules), in
 * real Chromium against the real server process: the sign-in form, each account's own orders
 * only (live too), the rules' 403 and 404 shown as any problem is, the token renewed before
 * it expires, sign-out revoking the session, all of it from the keyboard as well.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { WRITE_KEY } from './helpers/keys.js';
import type { RunningServer } from './helpers/server.js';
import { PASSWORDS } from './helpers/shop-accounts.js';
import { SHOTS, shopConsole } from './helpers/shop-console.js';

describe('the console signed in to the shop, in Chromium', () => {
  const ids = { ada: 0, bob: 0, adasOrder: 0, bobsOrder: 0, product: 0 };
  const shop = shopConsole(async () => {
    ids.product = (await api('POST', '/product/', { name: 'Teapot', price: 19.5 }, WRITE_KEY)).body.id;
    const sam = { name: 'Sam', email: 'sam@example.com', password: PASSWORDS.sam, role: 'staff' };
    assert.equal((await api('POST', '/user/', sam, WRITE_KEY)).status, 201);
    for (const who of ['ada', 'bob'] as const) {
      const name = who === 'ada' ? 'Ada' : 'Bob';
      const made = await api('POST', '/user/', { name, email: `${who}@example.com`, password: PASSWORDS[who] });
      ids[who] = made.body.id;
    }
    ids.adasOrder = await placeOrder(await tokenOf('ada'));
    ids.bobsOrder = await placeOrder(await tokenOf('bob'));
  });
  const { api, pageErrors } = shop;
  const tokenOf = async (who: 'ada' | 'bob') =>
    (await api('POST', '/users/auth/', { email: `${who}@example.com`, password: PASSWORDS[who] })).body.token as string;
  const placeOrder = async (token: string) =>
    (await api('POST', '/order/', { items: [{ productId: ids.product, quantity: 1 }], status: 'placed' }, token)).body
      .id as number;
  let server: RunningServer;
  let page: Page;
  beforeEach(() => {
    ({ server, page } = shop);
  });

  const openOrders = async () => {
    await page.goto(`${server.url}/#orders`);
    await listSays(/^Page \d+: |No orders here|No orders shown without signing in/);
  };
  const listSays = (text: RegExp | string) => page.locator('#list-status').filter({ hasText: text }).waitFor();
  const shownIds = () => page.locator('#records tbody button.open').allTextContents();
  // Page code is passed as text: this project compiles without the DOM's types.
  const focusedName = () => page.evaluate('document.activeElement?.getAttribute("name")');
  /** Resolves once the table shows exactly the orders `expected` (Playwright's locators wait as the page redraws). */
  const showsIds = async (expected: number[]) => {
    for (const id of expected) await page.getByRole('button', { name: `Edit order ${id}`, exact: true }).waitFor();
    await page.locator('#records tbody button.open').nth(expected.length).waitFor({ state: 'detached' });
  };
  const signInResponse = () =>
    page.waitForResponse((r) => r.url() === `${server.url}/users/auth/` && r.request().method() === 'POST');

  it('signs in through the form, shows only her orders, live, and the rules’ 404 and 403; signs out', async () => {
    await openOrders();
    await listSays('No orders shown without signing in.');
    await page.getByLabel('Email', { exact: true }).fill('ada@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORDS.ada);
    const [signedIn, listed] = await Promise.all([
      signInResponse(),
      page.waitForRequest((r) => r.url().startsWith(`${server.url}/orders/?`)),
      page.getByRole('button', { name: 'Sign in', exact: true }).click(),
    ]);
    assert.equal(signedIn.status(), 200);
    const { token } = (await signedIn.json()) as { token: string };
    assert.equal(listed.headers().authorization, `Bearer ${token}`);
    await page.locator('#who').filter({ hasText: 'Signed in as Ada, one of users' }).waitFor();
    assert.equal(await page.locator('form.sign-in').isVisible(), false, 'the form makes way');
    await showsIds([ids.adasOrder]);

    // Live: the feed carries her token, so her new order shows and Bob's does not.
    await page.locator('#live').waitFor();
    const bobs = await placeOrder(await tokenOf('bob'));
    const hers = await placeOrder(await tokenOf('ada'));
    await showsIds([ids.adasOrder, hers]);
    assert.ok(!(await shownIds()).includes(String(bobs)));

    // A record the rules hide is not found; one she may see but not change is forbidden.
    await page.goto(`${server.url}/#orders/${ids.bobsOrder}`);
    await page.locator('#list-status.error').filter({ hasText: /^404 / }).waitFor();
    await page.getByRole('button', { name: `Edit order ${ids.adasOrder}` }).click();
    // Her order in the editor first: its read answering after the edit would overwrite it.
    await page.getByRole('heading', { name: `Order ${ids.adasOrder}`, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Raw JSON', exact: true }).click();
    const fields = { userId: ids.ada, items: [{ productId: ids.product, quantity: 2 }], status: 'placed' };
    await page.locator('#record-json').fill(JSON.stringify(fields));
    const [refused] = await Promise.all([
      page.waitForResponse(
        (r) => r.url() === `${server.url}/order/${ids.adasOrder}/` && r.request().method() === 'PUT',
      ),
      page.getByRole('button', { name: 'Save changes' }).click(),
    ]);
    assert.equal(refused.status(), 403);
    await page.locator('#record-errors li').filter({ hasText: /^403 / }).waitFor();
    await page.screenshot({ path: `${SHOTS}/signed-in.png`, fullPage: true });

    const kept = await page.evaluate('JSON.parse(sessionStorage.getItem("restock.session")).refreshToken');
    // With the switch on, sign-out goes as POST carrying the override, as record deletes do.
    await page.getByLabel('send changes through POST with HTTP-X-HTTP-METHOD').check();
    const [signedOut] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/users/auth/` && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    assert.equal(signedOut.status(), 204);
    assert.equal(signedOut.request().headers()['http-x-http-method'], 'DELETE');
    await listSays('No orders shown without signing in.');
    await page.getByLabel('Email', { exact: true }).waitFor();
    assert.equal((await api('POST', '/users/auth/refresh/', { refreshToken: kept })).status, 401, 'revoked');
    assert.deepEqual(pageErrors, []);
  });

  it('works from the keyboard alone: signs in, says who and their role, signs out', async () => {
    await openOrders();
    for (let i = 0; i < 40 && (await focusedName()) !== 'name'; i++) await page.keyboard.press('Tab');
    assert.equal(await focusedName(), 'name', 'Tab reaches the sign-in form');
    await page.keyboard.type('sam@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORDS.sam);
    const [signedIn] = await Promise.all([signInResponse(), page.keyboard.press('Enter')]);
    assert.equal(signedIn.status(), 200);
    await page.locator('#who').filter({ hasText: 'Signed in as Sam (staff), one of users' }).waitFor();
    assert.equal(await page.evaluate('document.activeElement?.id'), 'sign-out', 'focus on what replaced the form');
    // Staff see every order.
    for (const id of [ids.adasOrder, ids.bobsOrder]) {
      await page.getByRole('button', { name: `Edit order ${id}`, exact: true }).waitFor();
    }
    const [signedOut] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/users/auth/` && r.request().method() === 'DELETE'),
      page.keyboard.press('Enter'),
    ]);
    assert.equal(signedOut.status(), 204);
    assert.equal(await focusedName(), 'name', 'back to the form');
    await page.locator('#account-status').filter({ hasText: 'Signed out of users.' }).waitFor();
    assert.deepEqual(pageErrors, []);
  });

  it('renews the token before it expires, and sends the new one; a wrong password is shown as a problem', async () => {
    await page.clock.install();
    await openOrders();
    await page.getByLabel('Email', { exact: true }).fill('ada@example.com');
    await page.getByLabel('Password', { exact: true }).fill('not her password');
    const [refused] = await Promise.all([signInResponse(), page.getByRole('button', { name: 'Sign in' }).click()]);
    assert.equal(refused.status(), 401);
    await page.locator('#account-status.error').filter({ hasText: /^401 / }).waitFor();
    await page.screenshot({ path: `${SHOTS}/sign-in-refused.png` });

    await page.getByLabel('Password', { exact: true }).fill(PASSWORDS.ada);
    await Promise.all([signInResponse(), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.locator('#who').waitFor();
    // 14 min 40 s on: within the last 30 s of the 15-minute token, the console renews it by itself.
    const [renewed] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/users/auth/refresh/`),
      page.clock.fastForward('14:40'),
    ]);
    assert.equal(renewed.status(), 200);
    const { token } = (await renewed.json()) as { token: string };
    const [listed] = await Promise.all([
      page.waitForRequest((r) => r.url().startsWith(`${server.url}/orders/?`)),
      page.getByRole('button', { name: 'Apply' }).click(),
    ]);
    assert.equal(listed.headers().authorization, `Bearer ${token}`);
    await page.locator('#who').filter({ hasText: 'Signed in as Ada' }).waitFor();
    assert.deepEqual(pageErrors, []);
  });
});
