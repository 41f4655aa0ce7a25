/**
 * The console as a newcomer meets it on the example shop (schemas/shop, with its accounts
 * and rules), in real Chromium against the real server process: the hint to sign in where
 * the rules show a visitor nothing, passwords typed out of sight, the Batch panel's example
 * valid against the collection's schema and run as shown, and a refused save said on the
 * status line in place of the success before it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { beforeEach, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Page } from 'playwright-core';
import { WRITE_KEY } from './helpers/keys.js';
import type { RunningServer } from './helpers/server.js';
import { PASSWORDS } from './helpers/shop-accounts.js';
import { SHOTS, shopConsole } from './helpers/shop-console.js';

const ORDER_SCHEMA = JSON.parse(readFileSync(new URL('../schemas/shop/orders.schema.json', import.meta.url), 'utf8'));

describe('the console on the example shop, as a newcomer meets it, in Chromium', () => {
  let product = 0;
  const shop = shopConsole(async (api) => {
    product = (await api('POST', '/product/', { name: 'Teapot', price: 19.5 }, WRITE_KEY)).body.id;
    const ada = { name: 'Ada', email: 'ada@example.com', password: PASSWORDS.ada };
    assert.equal((await api('POST', '/user/', ada)).status, 201);
  });
  const { api, pageErrors } = shop;
  let server: RunningServer;
  let page: Page;
  beforeEach(() => {
    ({ server, page } = shop);
  });

  const listSays = (text: RegExp | string) => page.locator('#list-status').filter({ hasText: text }).waitFor();
  const signInAsAda = async () => {
    await page.getByLabel('Email', { exact: true }).fill('ada@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORDS.ada);
    const [signedIn] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/users/auth/` && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Sign in', exact: true }).click(),
    ]);
    assert.equal(signedIn.status(), 200);
    await page.locator('#who').filter({ hasText: 'Signed in as Ada' }).waitFor();
  };

  it('shows a visitor the hint to sign in, not an empty table, where the rules show nothing without an account', async () => {
    // Ada has an order: the table a visitor gets is empty only because the rules hide it.
    const { token } = (await api('POST', '/users/auth/', { email: 'ada@example.com', password: PASSWORDS.ada })).body;
    const order = { items: [{ productId: product, quantity: 1 }], status: 'placed' };
    const placed = (await api('POST', '/order/', order, token)).body.id as number;
    await page.goto(`${server.url}/#orders`);
    await listSays('No orders shown without signing in.');
    const hint = page.locator('#sign-in-hint');
    await hint.filter({ hasText: 'Orders are shown only to those allowed to see them: sign in above' }).waitFor();
    assert.equal(await page.locator('#records').isVisible(), false, 'no bare empty table');
    await page.screenshot({ path: `${SHOTS}/sign-in-hint.png` });
    await hint.getByRole('button', { name: 'Go to sign-in' }).click();
    assert.equal(await page.evaluate('document.activeElement?.getAttribute("name")'), 'name', 'the sign-in form');

    // Products may be listed by anyone: an empty page of them would say so plainly, with no hint.
    await page.goto(`${server.url}/#products`);
    await listSays(/^Page 1: 1 product/);
    assert.equal(await hint.isVisible(), false);

    await page.goto(`${server.url}/#orders`);
    await listSays('No orders shown without signing in.');
    await signInAsAda();
    await page.getByRole('button', { name: `Edit order ${placed}`, exact: true }).waitFor();
    assert.equal(await hint.isVisible(), false, 'the hint makes way for her orders');
    assert.equal(await page.locator('#records').isVisible(), true);
    assert.deepEqual(pageErrors, []);
  });

  it('types every password out of sight, with the autocomplete a password manager reads', async () => {
    await page.goto(`${server.url}/#users`);
    await listSays('No users shown without signing in.');
    // The sign-in form's password, and the users form's password field (writeOnly in the schema).
    await page.locator('.schema-fields [data-field="password"] input').waitFor();
    type Input = { type: string; autocomplete: string; label: string; name: string };
    const inputs = (await page.evaluate(`[...document.querySelectorAll('input')].map((input) => ({
      type: input.type,
      autocomplete: input.getAttribute('autocomplete') ?? '',
      label: [...input.labels].map((label) => label.textContent).join(' '),
      name: input.name,
    }))`)) as Input[];
    const passwords = inputs.filter((input) => /password/i.test(`${input.label} ${input.name}`));
    assert.equal(passwords.length, 2, JSON.stringify(passwords));
    for (const input of passwords) assert.equal(input.type, 'password', JSON.stringify(input));
    assert.deepEqual(passwords.map((input) => input.autocomplete).sort(), ['current-password', 'new-password']);
    assert.deepEqual(pageErrors, []);
  });

  it('offers an Orders example batch that keeps the orders schema, and runs as shown', async () => {
    await page.goto(`${server.url}/#orders`);
    await listSays('No orders shown without signing in.');
    // Signed in, the example is made again from the records she may see: its references are
    // read (the products' last), and the panel is busy until it is in the textarea.
    const [lookup] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith('/products/?limit=1') && r.headers().authorization !== undefined),
      signInAsAda(),
    ]);
    assert.match(lookup.headers().authorization ?? '', /^Bearer /);
    await page.locator('#batch-form:not([aria-busy])').waitFor();
    const operations = page.getByLabel('Operations, as a JSON array');
    const example = JSON.parse(await operations.inputValue()) as { method: string; path: string; body?: unknown }[];
    assert.deepEqual(
      example.map((operation) => `${operation.method} ${operation.path}`),
      ['POST /order/', 'GET /order/$0.id/'],
    );
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(ORDER_SCHEMA);
    assert.ok(validate(example[0]?.body), JSON.stringify(validate.errors));
    assert.deepEqual(example[0]?.body, {
      userId: (await api('GET', '/users/?limit=1', undefined, WRITE_KEY)).body[0].id,
      items: [{ productId: product, quantity: 1 }],
      status: 'placed',
    });
    const [answered] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/batch/`),
      page.getByRole('button', { name: 'Send batch', exact: true }).click(),
    ]);
    assert.equal(answered.status(), 200);
    const [made, read] = (await answered.json()) as { status: number; body: { id: number } }[];
    assert.deepEqual([made?.status, read?.status], [201, 200]);
    assert.equal(read?.body.id, made?.body.id);
    await page.locator('#batch-status').filter({ hasText: '200: all 2 operations ran, in one transaction.' }).waitFor();
    await page.getByRole('button', { name: `Edit order ${made?.body.id}`, exact: true }).waitFor();
    assert.deepEqual(pageErrors, []);
  });

  it('says a refused save on the status line, in place of the success before it', async () => {
    await page.goto(`${server.url}/#products`);
    await listSays(/^Page 1: /);
    await page.getByLabel('API key').fill(WRITE_KEY);
    await page.getByLabel('API key').press('Enter');
    await page.getByRole('button', { name: `Edit product ${product}`, exact: true }).click();
    // The record is in the editor before it is edited: a save before that would create one.
    await page.getByRole('heading', { name: `Product ${product}`, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Raw JSON', exact: true }).click();
    const url = `${server.url}/product/${product}/`;
    const save = async (fields: object) => {
      await page.locator('#record-json').fill(JSON.stringify(fields));
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url() === url && r.request().method() === 'PUT'),
        page.getByRole('button', { name: 'Save changes', exact: true }).click(),
      ]);
      return response.status();
    };
    assert.equal(await save({ name: 'Teapot', price: 21 }), 200);
    await listSays(`Saved product ${product}.`);
    assert.equal(await save({ name: 'Teapot', price: -1 }), 422);
    await page.locator('#list-status.error').filter({ hasText: /^422 / }).waitFor();
    assert.doesNotMatch((await page.locator('#list-status').textContent()) ?? '', /Saved/);
    await page.locator('#record-errors li').filter({ hasText: /^422 / }).waitFor();
    // A slip the console catches itself is sent nowhere, and no older success stays either.
    await page.locator('#record-json').fill('{"name": ');
    await page.getByRole('button', { name: 'Save changes', exact: true }).click();
    await page.locator('#record-errors li').filter({ hasText: 'Not valid JSON' }).waitFor();
    await listSays(/^Page 1: /);
    assert.deepEqual(pageErrors, []);
  });
});
