/**
 * The browser console and the reference page in real Chromium (Debian's, through
 * playwright-core), against the real server process on an ephemeral port. Every request
 * the pages make is recorded: none may leave 127.0.0.1. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { DEFAULT_COLLECTIONS } from '../src/core/default-collections.js';
import { openStore } from '../src/store/open-store.js';
import { launchChromium } from './helpers/browser.js';
import { catalogOf } from './helpers/catalog.js';
import { cli } from './helpers/cli.js';
import { API_KEYS, READ_KEY, WRITE_KEY } from './helpers/keys.js';
import { OPEN_SHOP_SCHEMAS } from './helpers/open-shop.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { STORE_KINDS, sqliteKind, type TestDatabase } from './helpers/stores.js';

const SHOTS = 'test-artifacts/console';
const SWITCH_LABEL = 'send changes through POST with HTTP-X-HTTP-METHOD';

describe('the console and the reference page in Chromium', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests: Request[] = [];
  const pageErrors: string[] = [];
  /** What Chromium reports the pages' Content-Security-Policy blocked: nothing, ever. */
  const blocked: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await sqliteKind.create();
    server = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: 'info' });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.on('request', (request) => requests.push(request));
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy/.test(message.text())) blocked.push(`${page.url()}: ${message.text()}`);
    });
  });

  after(async () => {
    await browser?.close();
    assert.equal(await server?.stop(), 0);
    await db?.drop();
  });

  /** The API itself, as any client sees it: this suite's server, or `origin` with `key`. */
  const api = async (
    method: string,
    path: string,
    payload?: unknown,
    { origin = server.url, key }: { origin?: string; key?: string } = {},
  ) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: {
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  /** A counter from /metrics, read on the server side. */
  const requestCount = async (labels: Record<string, string>) => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const wanted = `restock_http_requests_total{${Object.entries(labels)
      .map(([k, v]) => `${k}="${v}"`)
      .join(',')}} `;
    const line = text.split('\n').find((l) => l.startsWith(wanted));
    return line ? Number(line.slice(wanted.length)) : 0;
  };

  /** What the server logged of requests for `url`: the effective and the wire method. */
  const logged = (url: string) =>
    server.output
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; req?: { url: string; method: string; wireMethod: string } })
      .filter((entry) => entry.msg === 'request completed' && entry.req?.url === url)
      .map((entry) => `${entry.req?.method} via ${entry.req?.wireMethod}`);

  const openConsole = async (hash: string) => {
    // From a blank page, so that a change of fragment alone still loads the console anew.
    await page.goto('about:blank');
    await page.goto(`${server.url}/#${hash}`);
    await page
      .locator('#list-status')
      .filter({ hasText: /^Page \d+: |No .* here/ })
      .waitFor();
  };

  const shot = (name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

  /** Presses the button named `button` and resolves with the response to `method` on `url`. */
  const press = async (button: string, url: string, method: string) => {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === url && r.request().method() === method),
      page.getByRole('button', { name: button, exact: true }).click(),
    ]);
    return response;
  };

  /** Puts `fields` in the editor, then {@link press}es `button`. */
  const submit = async (fields: unknown, button: string, url: string, method: string) => {
    await page.locator('#record-json').fill(typeof fields === 'string' ? fields : JSON.stringify(fields, null, 2));
    return press(button, url, method);
  };

  /** Deletes the record in the editor, confirming the browser's dialog. */
  const deleteShown = (url: string, method: string) => {
    page.once('dialog', (dialog) => dialog.accept());
    return press('Delete', url, method);
  };

  /** The ids of the rows on screen, in order. */
  const shownIds = () => page.locator('#records tbody button.open').allTextContents();

  /** Waits (a few seconds at most) until the table shows exactly the records `expected`, in order. */
  const showsIds = async (expected: string[]) => {
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await sleep(50)) {
      if (JSON.stringify(await shownIds()) === JSON.stringify(expected)) return;
    }
    assert.deepEqual(await shownIds(), expected, 'the rows on screen');
  };

  for (const tunnel of [false, true]) {
    for (const { plural, singular } of DEFAULT_COLLECTIONS) {
      const mode = tunnel ? 'switch on' : 'switch off';
      it(`creates, edits and deletes a ${singular} with the ${mode}`, async () => {
        await openConsole(plural);
        const toggle = page.getByLabel(SWITCH_LABEL);
        assert.ok(await toggle.isVisible(), 'the switch is visible');
        await toggle.setChecked(tunnel);

        // Create.
        await page.getByRole('button', { name: 'New record' }).click();
        const fields = { name: `${singular} made ${mode}`, price: 12.5, nested: { keep: 1, drop: 2 }, gone: true };
        const created = await submit(fields, `Create ${singular}`, `${server.url}/${singular}/`, 'POST');
        assert.equal(created.status(), 201);
        const id = ((await created.json()) as { id: number }).id;
        const item = `/${singular}/${id}/`;
        await page
          .locator('#editor-title')
          .filter({ hasText: `${id}` })
          .waitFor();
        await page.getByRole('button', { name: `Edit ${singular} ${id}` }).waitFor();
        await shot(`${singular}-${tunnel ? 'tunnel' : 'plain'}-created`);

        // Edit: change a field, add one, remove one, and remove one nested field.
        const edited = { name: `${singular} edited ${mode}`, price: 12.5, nested: { keep: 1 }, added: [1, 2] };
        const tunnelledBefore = await requestCount({
          route: `/${singular}/:id/`,
          method: 'PUT',
          tunnelled: String(tunnel),
          status: '200',
        });
        const saved = await submit(edited, 'Save changes', `${server.url}${item}`, tunnel ? 'POST' : 'PUT');
        assert.equal(saved.status(), 200);
        const sent = saved.request();
        assert.equal(sent.method(), tunnel ? 'POST' : 'PUT', 'the method on the wire');
        assert.equal(sent.headers()['http-x-http-method'], tunnel ? 'PUT' : undefined);
        assert.deepEqual(JSON.parse(sent.postData() ?? ''), {
          name: edited.name,
          nested: { drop: null },
          gone: null,
          added: [1, 2],
        });
        assert.equal(
          await requestCount({ route: `/${singular}/:id/`, method: 'PUT', tunnelled: String(tunnel), status: '200' }),
          tunnelledBefore + 1,
          'the server counted the PUT as tunnelled exactly when the switch was on',
        );
        await page
          .locator('#list-status')
          .filter({ hasText: `Saved ${singular} ${id}` })
          .waitFor();
        const afterEdit = await api('GET', item);
        assert.equal(afterEdit.status, 200);
        const { id: _id, createdAt: _c, updatedAt: _u, ...stored } = afterEdit.body as Record<string, unknown>;
        assert.deepEqual(stored, edited, 'the record, read through the API, is what the editor showed');
        await shot(`${singular}-${tunnel ? 'tunnel' : 'plain'}-edited`);

        // Delete.
        const deleted = await deleteShown(`${server.url}${item}`, tunnel ? 'POST' : 'DELETE');
        assert.equal(deleted.status(), 200);
        assert.equal(deleted.request().headers()['http-x-http-method'], tunnel ? 'DELETE' : undefined);
        await page
          .locator('#list-status')
          .filter({ hasText: `Deleted ${singular} ${id}` })
          .waitFor();
        assert.equal((await api('GET', item)).status, 404, 'gone, through the API');
        assert.equal(await page.getByRole('button', { name: `Edit ${singular} ${id}` }).count(), 0);

        // The server's own log: the effective method, and the wire method it came as.
        assert.deepEqual(
          logged(item).filter((entry) => !entry.startsWith('GET')),
          tunnel ? ['PUT via POST', 'DELETE via POST'] : ['PUT via PUT', 'DELETE via DELETE'],
        );
      });
    }
  }

  it('shows validation errors from the problem inline, by pointer, and catches bad JSON before sending', async () => {
    await openConsole('users');
    await page.getByRole('button', { name: 'New record' }).click();
    const longName = 'k'.repeat(201);
    const refused = await submit({ profile: { [longName]: 1 } }, 'Create user', `${server.url}/user/`, 'POST');
    assert.equal(refused.status(), 400);
    const problem = (await refused.json()) as { detail: string; errors: { pointer: string }[] };
    const errors = page.locator('#record-errors li');
    await errors.first().waitFor();
    assert.equal(await errors.first().textContent(), `400 Invalid record: ${problem.detail}`);
    assert.equal(await page.locator('#record-errors li.field-error code').textContent(), `/profile/${longName}`);
    assert.equal(await page.locator('#record-json').getAttribute('aria-invalid'), 'true');
    await shot('inline-errors');

    const sentBefore = requests.length;
    await page.locator('#record-json').fill('{"name": "unterminated');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.locator('#record-errors li').filter({ hasText: 'Not valid JSON' }).waitFor();
    assert.equal(requests.length, sentBefore, 'nothing was sent');
  });

  it("lists every violation of the collection's schema inline, each by its pointer", async () => {
    const schemaDb = await sqliteKind.create();
    const withSchemas = await startServer({ DATABASE_URL: schemaDb.url, SCHEMAS: OPEN_SHOP_SCHEMAS });
    try {
      await page.goto(`${withSchemas.url}/#users`);
      await page
        .locator('#list-status')
        .filter({ hasText: /No users here/ })
        .waitFor();
      const fields = { name: '', email: 'not an address' };
      await page.getByRole('button', { name: 'Raw JSON', exact: true }).click();
      const refused = await submit(fields, 'Create user', `${withSchemas.url}/user/`, 'POST');
      assert.equal(refused.status(), 422);
      const problem = (await refused.json()) as { errors: { pointer: string; message: string }[] };
      await page.locator('#record-errors li.field-error').first().waitFor();
      const shown = await page.locator('#record-errors li.field-error').allTextContents();
      assert.deepEqual(
        shown,
        problem.errors.map((e) => `${e.pointer} ${e.message}`),
      );
      assert.ok(shown.some((line) => line.startsWith('/email ')));
      assert.ok(shown.some((line) => line.startsWith('/name ')));
      await shot('schema-errors');
    } finally {
      assert.equal(await withSchemas.stop(), 0);
      await schemaDb.drop();
    }
  });

  describe("the record form built from the collection's JSON Schema", () => {
    /** The example store's schemas, and one collection with a property of each shape the form knows. */
    const GADGETS = {
      type: 'object',
      'x-singular': 'gadget',
      description: "A test-only collection: one property of each shape the console's form knows.",
      required: ['label', 'count'],
      properties: {
        label: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[A-Za-z ]+$', description: 'What it is.' },
        count: { type: 'integer', minimum: 0, maximum: 1000 },
        weight: { type: 'number', minimum: 0 },
        working: { type: 'boolean' },
        kind: { type: 'string', enum: ['tool', 'toy'] },
        released: { type: 'string', format: 'date' },
        checkedAt: { type: 'string', format: 'date-time' },
        homepage: { type: 'string', format: 'uri' },
        contact: { type: 'string', format: 'email' },
        size: { type: 'object', properties: { depth: { type: 'number' } } },
        notes: { type: 'string' },
      },
    };
    let folder: string;
    let shopDb: TestDatabase;
    let shop: RunningServer;

    before(async () => {
      folder = mkdtempSync(join(tmpdir(), 'restock-console-schemas-'));
      // The shop without its accounts and rules: this is about the form, not who may use it.
      for (const file of readdirSync(OPEN_SHOP_SCHEMAS))
        copyFileSync(join(OPEN_SHOP_SCHEMAS, file), join(folder, file));
      // Products open, as the example's were: the form keeps a field the schema does not name (colour).
      const products = JSON.parse(readFileSync(join(folder, 'products.schema.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      delete products.additionalProperties;
      writeFileSync(join(folder, 'products.schema.json'), JSON.stringify(products));
      writeFileSync(join(folder, 'gadgets.schema.json'), JSON.stringify(GADGETS));
      shopDb = await sqliteKind.create();
      shop = await startServer({ DATABASE_URL: shopDb.url, SCHEMAS: folder });
    });

    after(async () => {
      assert.equal(await shop?.stop(), 0);
      await shopDb?.drop();
      rmSync(folder, { recursive: true, force: true });
    });

    /** Opens the console on the store at `hash`, once its list and its form are there. */
    const openForm = async (hash: string) => {
      await page.goto('about:blank');
      await page.goto(`${shop.url}/#${hash}`);
      await page
        .locator('#list-status')
        .filter({ hasText: /^Page \d+: |No .* here/ })
        .waitFor();
      await page.locator('fieldset.schema-fields').waitFor();
    };
    const field = (name: string) => page.getByLabel(name, { exact: true });
    const rawToggle = () => page.getByRole('button', { name: 'Raw JSON', exact: true });
    /** What a field's input is: its tag, type and the attributes the schema set. */
    const describeInput = async (name: string) => {
      const input = field(name);
      const attributes = ['type', 'step', 'min', 'max', 'maxlength', 'minlength', 'pattern', 'aria-required'];
      const values = await Promise.all(attributes.map((a) => input.getAttribute(a)));
      return {
        tag: await page.evaluate(
          `document.getElementById(${JSON.stringify(await input.getAttribute('id'))}).localName`,
        ),
        ...Object.fromEntries(attributes.map((a, i) => [a, values[i]]).filter(([, v]) => v !== null)),
      };
    };
    /** The message shown beside a field, under its input. */
    const besides = (name: string) => page.locator(`.field[data-field="${name}"] .field-problem`);

    it('shows one labelled input per property, typed by the schema, with required marks and enums', async () => {
      await openForm('products');
      assert.equal(await page.locator('#record-json').isVisible(), false, 'the textarea is one click away');
      assert.equal(await rawToggle().getAttribute('aria-pressed'), 'false');
      assert.equal(await page.getByRole('button', { name: 'Format JSON' }).count(), 0, 'Format JSON is for raw JSON');
      assert.deepEqual(await describeInput('name'), {
        tag: 'input',
        type: 'text',
        maxlength: '200',
        minlength: '1',
        'aria-required': 'true',
      });
      assert.deepEqual(await describeInput('price'), { tag: 'input', type: 'number', step: '0.01', min: '0' });
      assert.deepEqual(await describeInput('stock'), { tag: 'input', type: 'number', step: '1', min: '0' });
      assert.deepEqual(await describeInput('currency'), { tag: 'select' });
      const currencies = await field('currency').locator('option').allTextContents();
      assert.deepEqual(currencies.slice(0, 3), ['(not set)', 'AED', 'AFN']);
      assert.ok(currencies.includes('EUR'));
      assert.match(String(await page.locator('.field[data-field="price"] .hint').textContent()), /two decimals/);
      // The required mark, for the eye: a red * after the label's text.
      const nameId = await field('name').getAttribute('id');
      const mark = await page.evaluate(
        `getComputedStyle(document.querySelector('label[for="${nameId}"]'), '::after').content`,
      );
      assert.match(String(mark), /\*/);
      const priceId = await field('price').getAttribute('id');
      assert.equal(
        await page.evaluate(`getComputedStyle(document.querySelector('label[for="${priceId}"]'), '::after').content`),
        'none',
        'an optional field has no mark',
      );
      await shot('form-product');

      await openForm('users');
      assert.deepEqual(await describeInput('email'), {
        tag: 'input',
        type: 'email',
        maxlength: '254',
        'aria-required': 'true',
      });

      await openForm('orders');
      assert.deepEqual(await describeInput('userId'), {
        tag: 'input',
        type: 'number',
        step: '1',
        min: '1',
        'aria-required': 'true',
      });
      assert.match(String(await page.locator('.field[data-field="userId"] .hint').textContent()), /record in users/);
      assert.deepEqual(await describeInput('items'), { tag: 'textarea', 'aria-required': 'true' });
      assert.deepEqual(await describeInput('status'), { tag: 'select', 'aria-required': 'true' });
      assert.deepEqual(await field('status').locator('option').allTextContents(), [
        'Choose…',
        'placed',
        'paid',
        'shipped',
        'delivered',
        'cancelled',
      ]);

      await openForm('gadgets');
      const types = Object.fromEntries(
        await Promise.all(
          Object.keys(GADGETS.properties).map(async (name) => {
            const { tag, type } = await describeInput(name);
            return [name, type ? `${tag} ${type}` : tag];
          }),
        ),
      );
      assert.deepEqual(types, {
        label: 'input text',
        count: 'input number',
        weight: 'input number',
        working: 'input checkbox',
        kind: 'select',
        released: 'input date',
        checkedAt: 'input datetime-local',
        homepage: 'input url',
        contact: 'input email',
        size: 'textarea',
        notes: 'input text',
      });
      assert.equal(await field('label').getAttribute('pattern'), '^[A-Za-z ]+$');
      assert.equal(await field('count').getAttribute('max'), '1000');
      assert.equal(await field('weight').getAttribute('step'), 'any');
      assert.equal(await page.locator('.field[data-field="label"] .hint').textContent(), 'What it is.');
      await shot('form-gadget');
    });

    it('creates a record from the form with typed values, and sends a cleared field as null', async () => {
      await openForm('gadgets');
      await field('label').fill('Pocket torch');
      await field('count').fill('3');
      await field('weight').fill('0.25');
      await field('working').check();
      await field('kind').selectOption('tool');
      await field('released').fill('2024-05-01');
      await field('checkedAt').fill('2025-03-04T05:06:07');
      await field('homepage').fill('https://example.com/torch');
      await field('contact').fill('maker@example.com');

      // A JSON field is checked before anything is sent.
      const sentBefore = requests.length;
      await field('size').fill('{"depth": ');
      await page.getByRole('button', { name: 'Create gadget', exact: true }).click();
      await besides('size')
        .filter({ hasText: /^is not valid JSON/ })
        .waitFor();
      assert.equal(await field('size').getAttribute('aria-invalid'), 'true');
      assert.equal(requests.length, sentBefore, 'nothing was sent');
      await field('size').fill('{"depth": 4}');

      const created = await press('Create gadget', `${shop.url}/gadget/`, 'POST');
      assert.equal(created.status(), 201, await created.text());
      const checkedAt = await page.evaluate(`new Date('2025-03-04T05:06:07').toISOString()`);
      const expected = {
        label: 'Pocket torch',
        count: 3,
        weight: 0.25,
        working: true,
        kind: 'tool',
        released: '2024-05-01',
        checkedAt,
        homepage: 'https://example.com/torch',
        contact: 'maker@example.com',
        size: { depth: 4 },
      };
      assert.deepEqual(JSON.parse(created.request().postData() ?? ''), expected, 'notes, left empty, is left out');
      const id = ((await created.json()) as { id: number }).id;
      const read = await fetch(`${shop.url}/gadget/${id}/`);
      const { id: _id, createdAt: _c, updatedAt: _u, ...stored } = (await read.json()) as Record<string, unknown>;
      assert.deepEqual(stored, expected, 'the API returns numbers as numbers and booleans as booleans');

      // The editor now holds the record, in the form.
      await page
        .locator('#editor-title')
        .filter({ hasText: `Gadget ${id}` })
        .waitFor();
      assert.equal(await field('count').inputValue(), '3');
      assert.equal(await field('working').isChecked(), true);
      assert.equal(await field('kind').locator('option:checked').textContent(), 'tool');

      // Clearing an optional field removes it; untouched fields (the date-time too) are not sent.
      await field('weight').fill('');
      await field('working').uncheck();
      const saved = await press('Save changes', `${shop.url}/gadget/${id}/`, 'PUT');
      assert.equal(saved.status(), 200, await saved.text());
      assert.deepEqual(JSON.parse(saved.request().postData() ?? ''), { weight: null, working: false });
      const changed = (await (await fetch(`${shop.url}/gadget/${id}/`)).json()) as Record<string, unknown>;
      assert.equal('weight' in changed, false);
      assert.equal(changed.working, false);
      assert.equal(changed.checkedAt, checkedAt);
    });

    it('switches to raw JSON and back from the keyboard, keeping fields the schema does not name', async () => {
      await openForm('products');
      await field('name').fill('Kettle');
      await field('price').fill('54');
      await rawToggle().focus();
      await page.keyboard.press('Enter');
      assert.equal(await rawToggle().getAttribute('aria-pressed'), 'true');
      const textarea = page.locator('#record-json');
      await textarea.waitFor();
      assert.equal(await page.locator('fieldset.schema-fields').isVisible(), false);
      assert.deepEqual(JSON.parse(await textarea.inputValue()), { name: 'Kettle', price: 54 });

      await textarea.fill(JSON.stringify({ colour: 'black', name: 'Kettle', price: 49.5, stock: 2 }));
      await page.keyboard.press('Shift+Tab');
      assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Raw JSON', 'Tab reaches the toggle');
      await page.keyboard.press('Space');
      assert.equal(await rawToggle().getAttribute('aria-pressed'), 'false');
      await page.locator('fieldset.schema-fields').waitFor();
      assert.equal(await field('price').inputValue(), '49.5');
      assert.equal(await field('stock').inputValue(), '2');
      assert.match(String(await page.locator('.schema-fields .extras').textContent()), /\bcolour\b/);

      // And back once more: the same JSON, the unknown field where it was.
      await rawToggle().click();
      assert.deepEqual(JSON.parse(await textarea.inputValue()), {
        colour: 'black',
        name: 'Kettle',
        price: 49.5,
        stock: 2,
      });
      await rawToggle().click();

      const created = await press('Create product', `${shop.url}/product/`, 'POST');
      assert.equal(created.status(), 201, await created.text());
      const body = { colour: 'black', name: 'Kettle', price: 49.5, stock: 2 };
      assert.deepEqual(JSON.parse(created.request().postData() ?? ''), body);
      const id = ((await created.json()) as { id: number }).id;
      const stored = (await (await fetch(`${shop.url}/product/${id}/`)).json()) as Record<string, unknown>;
      assert.equal(stored.colour, 'black', 'the field the schema does not name was kept');

      // JSON that does not parse stays in the textarea, with the reason.
      await page.getByRole('button', { name: 'New record', exact: true }).click();
      await rawToggle().click();
      await textarea.fill('{"name": ');
      await rawToggle().click();
      await page.locator('#record-errors li').filter({ hasText: 'Not valid JSON' }).waitFor();
      assert.equal(await rawToggle().getAttribute('aria-pressed'), 'true');
      assert.ok(await textarea.isVisible());
      await textarea.fill('{}');
      await rawToggle().click();
      await page.locator('fieldset.schema-fields').waitFor();
    });

    it('shows each error of a 422 beside the field its pointer names', async () => {
      await openForm('users');
      await field('email').fill('not an address');
      const refused = await press('Create user', `${shop.url}/user/`, 'POST');
      assert.equal(refused.status(), 422);
      const problem = (await refused.json()) as { errors: { pointer: string; message: string }[] };
      const message = (pointer: string) => problem.errors.find((e) => e.pointer === pointer)?.message;
      await besides('email').waitFor();
      assert.equal(await besides('email').textContent(), message('/email'));
      assert.equal(await besides('name').textContent(), message('/name'));
      assert.equal(await field('email').getAttribute('aria-invalid'), 'true');
      assert.equal(
        await page.locator('#record-errors li.field-error').count(),
        problem.errors.length,
        'and listed above the buttons, as before',
      );
      await shot('form-errors');
      // Fixed, the marks go with the next answer.
      await field('name').fill('Ada Lovelace');
      await field('email').fill('ada@example.com');
      assert.equal((await press('Create user', `${shop.url}/user/`, 'POST')).status(), 201);
      assert.equal(await page.locator('.field-problem:visible').count(), 0);

      // A reference to no record, in a field and deep inside an array field.
      await openForm('orders');
      await field('userId').fill('99');
      await field('items').fill('[{"productId": 98, "quantity": 1}]');
      await field('status').selectOption('placed');
      const missing = await press('Create order', `${shop.url}/order/`, 'POST');
      assert.equal(missing.status(), 422);
      await besides('userId').waitFor();
      assert.equal(await besides('userId').textContent(), 'names no record of users (id 99)');
      assert.equal(await besides('items').textContent(), '/0/productId names no record of products (id 98)');
      assert.equal(await besides('items').locator('code').textContent(), '/0/productId');
    });

    it('keeps the textarea alone for a collection without a schema', async () => {
      const [openapi] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${server.url}/openapi.json`),
        openConsole('users'),
      ]);
      assert.equal(openapi.status(), 200);
      await openapi.finished();
      await sleep(100);
      assert.ok(await page.locator('#record-json').isVisible());
      assert.ok(await page.getByRole('button', { name: 'Format JSON' }).isVisible());
      assert.equal(await page.locator('fieldset.schema-fields').isVisible(), false);
      assert.equal(await rawToggle().count(), 0, 'no toggle: there is no form to leave');
      assert.deepEqual(blocked, [], 'the form breaks no policy');
    });
  });

  it("shows another client's changes as they happen, following the change feed", async () => {
    await openConsole('users');
    await page.locator('#live').waitFor();
    const created = await api('POST', '/user/', { name: 'Arrived from elsewhere' });
    const id = String((created.body as { id: number }).id);
    await page
      .locator('#records tbody button.open')
      .filter({ hasText: new RegExp(`^${id}$`) })
      .waitFor();
    await api('DELETE', `/user/${id}/`);
    await page
      .locator('#records tbody button.open')
      .filter({ hasText: new RegExp(`^${id}$`) })
      .waitFor({ state: 'detached' });
  });

  it("keeps the keyboard's focus on its row when another client's change redraws the table", async () => {
    await openConsole('users');
    await page.locator('#live').waitFor();
    const mine = await api('POST', '/user/', { name: 'Focused by keyboard' });
    const id = (mine.body as { id: number }).id;
    const button = page.locator(`#records button[aria-label="Edit user ${id}"]`);
    await button.focus();
    const other = await api('POST', '/user/', { name: 'Arrived while focused' });
    const otherId = String((other.body as { id: number }).id);
    await page
      .locator('#records tbody button.open')
      .filter({ hasText: new RegExp(`^${otherId}$`) })
      .waitFor();
    assert.equal(await page.evaluate('document.activeElement?.getAttribute("aria-label")'), `Edit user ${id}`);
  });

  it('resumes the feed after a restart from the last change seen, and says when it had to reload', async () => {
    await openConsole('users');
    await page.locator('#live').waitFor();
    await api('POST', '/user/', { name: 'Seen before the restart' });
    await page.locator('#records tbody').filter({ hasText: 'Seen before the restart' }).waitFor();
    const port = new URL(server.url).port;
    assert.equal(await server.stop(), 0);
    await page.locator('#live').waitFor({ state: 'hidden' });
    const store = await openStore(db.url, catalogOf(DEFAULT_COLLECTIONS.map((r) => r.plural)));
    const { last: seen } = await store.changes.bounds('users');
    // While restock is down, a change the page never saw passes what the log keeps.
    const imported = await cli(db.url, ['import', '-', '-c', 'users'], '{"name":"Imported while down"}\n');
    assert.equal(imported.code, 0, imported.stderr);
    assert.ok((await store.changes.trim(new Date(Date.now() + 60_000))) > 0);
    await store.close();
    server = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: 'info', PORT: port });
    await page.locator('#live').filter({ hasText: 'reloaded' }).waitFor();
    await page.locator('#records tbody').filter({ hasText: 'Imported while down' }).waitFor();
    const resumed = requests.filter((r) => r.url().endsWith('/users/events/') && r.headers()['last-event-id']);
    assert.equal(resumed.at(-1)?.headers()['last-event-id'], String(seen), 'resumed after the last change seen');
  });

  it('shows a reference as a link to the record it names, which opens it', async () => {
    const schemaDb = await sqliteKind.create();
    const shop = await startServer({ DATABASE_URL: schemaDb.url, SCHEMAS: OPEN_SHOP_SCHEMAS });
    try {
      const post = (path: string, fields: object) =>
        fetch(`${shop.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(fields),
        });
      assert.equal((await post('/user/', { name: 'Grace Hopper', email: 'grace@example.com' })).status, 201);
      assert.equal((await post('/product/', { name: 'Teapot', sku: 'TEA-1' })).status, 201);
      const order = { userId: 1, items: [{ productId: 1, quantity: 1 }], status: 'placed' };
      assert.equal((await post('/order/', order)).status, 201);
      await page.goto(`${shop.url}/#orders`);
      const link = page.locator('#records tbody a[href="#users/1"]');
      await link.waitFor();
      assert.equal(await link.textContent(), '1 Grace Hopper');
      await link.click();
      await page.locator('#editor-title').filter({ hasText: 'User 1' }).waitFor();
      assert.equal(JSON.parse(await page.locator('#record-json').inputValue()).email, 'grace@example.com');
      await page.locator('#list-title').filter({ hasText: 'Users' }).waitFor();
    } finally {
      assert.equal(await shop.stop(), 0);
      await schemaDb.drop();
    }
  });

  it('pages through a collection by following Link rel="next"', async () => {
    for (let i = 1; i <= 23; i++) await api('POST', '/product/', { name: `paged ${String(i).padStart(2, '0')}` });
    await openConsole('products');
    await page.locator('#limit').selectOption('10');
    const total = ((await api('GET', '/products/?limit=1000')).body as unknown[]).length;
    await page
      .locator('#list-status')
      .filter({ hasText: `Page 1: 10 products of ${total}; more on the next page.` })
      .waitFor();
    const firstIds = await page.locator('#records tbody button.open').allTextContents();
    const [next] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('cursor=')),
      page.getByRole('button', { name: 'Next page' }).click(),
    ]);
    assert.equal(next.status(), 200);
    // An exact match (3 is not 13); a locator, since the page's CSP forbids polling by eval.
    const firstId = (id: string | undefined, same: boolean) =>
      page
        .locator('#records tbody button.open')
        .first()
        .filter(same ? { hasText: new RegExp(`^${id}$`) } : { hasNotText: new RegExp(`^${id}$`) })
        .waitFor();
    await firstId(firstIds[0], false);
    await page
      .locator('#list-status')
      .filter({ hasText: `Page 2: 10 products of ${total}` })
      .waitFor();
    const secondIds = await page.locator('#records tbody button.open').allTextContents();
    assert.equal(secondIds.length, 10);
    assert.ok(Number(secondIds[0]) > Number(firstIds.at(-1)), 'the next page starts after the first');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await firstId(firstIds[0], true);
    await shot('paging');
  });

  /**
   * Does `action`, which makes the console list records with a request whose query has
   * `param` (`name=value`), and asserts that the table then shows exactly the records the
   * API answers to that same request. Resolves with them.
   */
  const listedAfter = async (action: () => Promise<void>, param: string) => {
    const [name, value] = param.split('=');
    const [response] = await Promise.all([
      page.waitForResponse(
        (r) => r.request().method() === 'GET' && new URL(r.url()).searchParams.get(name ?? '') === value,
      ),
      action(),
    ]);
    assert.equal(response.status(), 200, await response.text());
    const { pathname, search } = new URL(response.url());
    const records = (await api('GET', pathname + search)).body as { id: number; name: string }[];
    await showsIds(records.map((r) => String(r.id)));
    assert.equal(await page.locator('#list-status.error').count(), 0, 'no problem shown');
    return records;
  };

  it('narrows the table with the search box and orders it by a column, as the API answers', async () => {
    // Created in neither the order of their names nor its reverse; two hold the word
    // searched for, in different case.
    const names = ['needle in a haystack', 'kiwi', 'Needle: aardvark', 'mango', 'zebra'];
    const made: number[] = [];
    for (const name of names) made.push((await api('POST', '/user/', { name })).body.id);
    await openConsole('users');
    const unsorted = await shownIds();

    await page.getByLabel('Search').fill('needle');
    const found = await listedAfter(() => page.getByRole('button', { name: 'Apply' }).click(), 'q=needle');
    assert.deepEqual(
      found.map((r) => r.name),
      ['needle in a haystack', 'Needle: aardvark'],
      'q= finds the word in any case, and nothing else',
    );
    assert.ok(found.length < unsorted.length, 'the search narrows the table');
    await shot('search');

    await page.getByLabel('Search').fill('');
    const column = (name: string) => page.locator('#records thead').getByRole('button', { name, exact: true });
    const ascending = await listedAfter(() => column('name').click(), 'sort=name');
    assert.deepEqual(
      ascending.filter((r) => made.includes(r.id)).map((r) => r.name),
      [...names].sort(),
      'by name, in code point order',
    );
    assert.notDeepEqual(
      ascending.map((r) => String(r.id)),
      unsorted,
      'the sort reorders the table',
    );
    assert.equal(await page.locator('#records thead th[aria-sort="ascending"]').textContent(), 'name');
    await shot('sorted');

    // A second click turns the order round (ties by id turn with it).
    const descending = await listedAfter(() => column('name').click(), 'sort=-name');
    assert.deepEqual(descending, [...ascending].reverse());
    assert.equal(await page.locator('#records thead th[aria-sort="descending"]').textContent(), 'name');
  });

  it('shows the problem above the table, and keeps the rows, when the server refuses a parameter', async () => {
    await openConsole('users');
    const rows = await shownIds();
    await page.getByLabel('Sort').fill('a"b');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).searchParams.get('sort') === 'a"b'),
      page.getByRole('button', { name: 'Apply' }).click(),
    ]);
    assert.equal(refused.status(), 400);
    const problem = (await refused.json()) as { detail: string };
    await page.locator('#list-status.error').filter({ hasText: problem.detail }).waitFor();
    assert.deepEqual(await shownIds(), rows, 'the rows stay');
    assert.ok(await page.getByLabel('Search').isVisible());
    await shot('refused-parameter');
  });

  it('sends the API key as a bearer token once one is given', async () => {
    await openConsole('users');
    await page.getByLabel('API key').fill('test-key-123');
    const lists: string[] = [];
    const isList = (url: string) => url.startsWith(`${server.url}/users/?`);
    const isFeed = (url: string) => url === `${server.url}/users/events/`;
    const countLists = (r: { url(): string }) => isList(r.url()) && lists.push(r.url());
    page.on('request', countLists);
    const [reload, feed] = await Promise.all([
      page.waitForRequest((r) => isList(r.url())),
      page.waitForRequest((r) => isFeed(r.url())),
      page.getByLabel('API key').press('Enter'),
    ]);
    assert.equal(reload.headers().authorization, 'Bearer test-key-123');
    assert.equal(feed.headers().authorization, 'Bearer test-key-123', 'the change feed follows with the key too');
    await reload.response();
    page.off('request', countLists);
    assert.equal(lists.length, 1, 'Enter in the key field reloads the list once');
    await page.getByLabel('API key').fill('');
    await page.getByLabel('API key').press('Enter');
  });

  it('works from the keyboard alone', async () => {
    await openConsole('users');
    // Page code is passed as text (page.evaluate): this project compiles without the DOM's types.
    const reach = async (selector: string) => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(`document.activeElement === document.querySelector(${JSON.stringify(selector)})`)) {
          return;
        }
      }
      assert.fail(`Tab never reached ${selector}`);
    };
    await reach('#tunnel');
    const wasOn = await page.locator('#tunnel').isChecked();
    await page.keyboard.press('Space');
    assert.equal(await page.locator('#tunnel').isChecked(), !wasOn);
    await page.keyboard.press('Space');
    await reach('#record-json');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('{"name": "typed by keyboard"}');
    const [created] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/user/`),
      page.keyboard.press('Control+Enter'),
    ]);
    assert.equal(created.status(), 201);
    const id = ((await created.json()) as { id: number }).id;
    await page.getByRole('button', { name: 'New record' }).focus();
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('#editor-title').textContent(), 'New user');
    await page.keyboard.press('Shift+Tab'); // back into the list: reach the new row's button
    await reach(`#records button[aria-label="Edit user ${id}"]`);
    const [read] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/user/${id}/`),
      page.keyboard.press('Enter'),
    ]);
    assert.equal(read.status(), 200);
    await page
      .locator('#editor-title')
      .filter({ hasText: `User ${id}` })
      .waitFor();
    assert.equal(await page.evaluate('document.activeElement?.id'), 'record-json', 'focus moves to the editor');
  });

  it('keeps the editor on what the user turned to while a create is still under way', async () => {
    await openConsole('products');
    // The create reaches the real server only once the user has turned to a new record.
    let turned = () => {};
    const hasTurned = new Promise<void>((resolve) => {
      turned = resolve;
    });
    await page.route(`${server.url}/product/`, async (route) => {
      await hasTurned;
      await route.continue();
    });
    try {
      await page.locator('#record-json').fill('{"name": "slow create"}');
      const created = page.waitForResponse((r) => r.url() === `${server.url}/product/` && r.status() === 201);
      await page.getByRole('button', { name: 'Create product', exact: true }).click();
      assert.ok(await page.locator('#save').isDisabled(), 'Save is disabled while the create is under way');
      assert.ok(await page.locator('#busy').isVisible(), 'and the indicator shows');
      await page.getByRole('button', { name: 'New record', exact: true }).click();
      await page.locator('#record-json').fill('{"name": "typed meanwhile"}');
      turned();
      const body = (await (await created).json()) as { id: number };
      await page
        .locator('#list-status')
        .filter({ hasText: `Created product ${body.id}.` })
        .waitFor();
      assert.equal(await page.locator('#record-json').inputValue(), '{"name": "typed meanwhile"}');
      assert.equal(await page.locator('#editor-title').textContent(), 'New product');
      assert.ok(await page.locator('#save').isEnabled());
      assert.ok(await page.locator('#busy').isHidden());
    } finally {
      await page.unroute(`${server.url}/product/`);
    }
  });

  it('offers to reload a record that changed since it was opened (412)', async () => {
    const made = (await api('POST', '/product/', { name: 'contested' })).body as { id: number };
    const url = `${server.url}/product/${made.id}/`;
    await openConsole('products');
    await page.locator('#tunnel').setChecked(false);
    await page.locator('#sort').fill('-id');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('button', { name: `Edit product ${made.id}`, exact: true }).click();
    await page
      .locator('#editor-title')
      .filter({ hasText: `Product ${made.id}` })
      .waitFor();
    await api('PUT', `/product/${made.id}/`, { name: 'changed elsewhere' });
    const refused = await submit({ name: 'mine' }, 'Save changes', url, 'PUT');
    assert.equal(refused.status(), 412);
    const reload = page.getByRole('button', { name: `Reload product ${made.id} (your edits here are lost)` });
    await reload.click();
    const editor = page.locator('#record-json');
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await sleep(50)) {
      if ((await editor.inputValue()).includes('changed elsewhere')) break;
    }
    assert.match(await editor.inputValue(), /"name": "changed elsewhere"/);
    assert.equal(await page.locator('#record-errors li').count(), 0, 'the problem is gone with the reload');
  });

  it("shows up to eight of the records' own fields as columns", async () => {
    const fields = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((name, i) => [name, i]));
    await api('POST', '/user/', fields);
    await openConsole('users');
    await page.locator('#limit').selectOption('100');
    await page.locator('#records thead th').nth(9).waitFor();
    const headers = await page.locator('#records thead th').allTextContents();
    assert.equal(headers.length, 10, headers.join(' '));
    assert.deepEqual([headers[0], headers[9]], ['id', 'updatedAt']);
  });

  it('is readable on a phone: one column, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await openConsole('products');
      // Without API keys (on loopback) the Webhooks panel is there too, and must fit as well.
      await page.locator('#webhooks').waitFor();
      const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
      const list = await page.locator('section.list').boundingBox();
      const editor = await page.locator('section.editor').boundingBox();
      assert.ok(list && editor && editor.y > list.y + list.height - 1, 'the editor sits below the list');
      assert.ok(await page.getByLabel(SWITCH_LABEL).isVisible());
      await shot('phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('renders the reference page, whose "try it" calls this server', async () => {
    await page.goto(`${server.url}/docs/`);
    await page.locator('.opblock').first().waitFor();
    const operations = await page.locator('.opblock').count();
    assert.ok(operations >= DEFAULT_COLLECTIONS.length * 6 + 7, `${operations} operations shown`);
    assert.ok(await page.getByText('HTTP-X-HTTP-METHOD').first().isVisible());
    const list = page.locator('#operations-users-listUsers');
    await list.locator('.opblock-summary').click();
    // "Try it out" is on from the start (tryItOutEnabled): Execute is there at once.
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${server.url}/users/`)),
      list.getByRole('button', { name: 'Execute' }).click(),
    ]);
    assert.equal(response.status(), 200);
    await list.locator('.live-responses-table .response-col_status').filter({ hasText: '200' }).first().waitFor();
    await shot('docs');
    assert.deepEqual(blocked, [], 'neither the console nor the reference page breaks its own policy');
  });

  it('with API keys: shows the 401 without a key, a read key lists but may not write, a write key creates, edits and deletes', async () => {
    const keyedDb = await sqliteKind.create();
    const keyed = await startServer({ DATABASE_URL: keyedDb.url, API_KEYS });
    const withKey = (key?: string) => ({ origin: keyed.url, key });
    try {
      const existing = await api('POST', '/product/', { name: 'there before' }, withKey(WRITE_KEY));
      assert.equal(existing.status, 201);

      // Another origin than the suite's server: a session storage of its own, with no key.
      await page.goto(`${keyed.url}/#products`);
      const unauthorized = await api('GET', '/products/?limit=25', undefined, withKey());
      assert.equal(unauthorized.status, 401);
      await page
        .locator('#list-status.error')
        .filter({ hasText: /^401 / })
        .filter({ hasText: unauthorized.body.detail })
        .waitFor();
      assert.deepEqual(await shownIds(), [], 'no record shown');
      for (const name of ['First page', 'Previous page', 'Next page']) {
        assert.equal(await page.getByRole('button', { name }).isDisabled(), true, `${name} leads nowhere yet`);
      }
      await shot('keys-unauthorized');

      /** Enters `key` in the API key field: the console lists the page again, with it. */
      const enterKey = async (key: string) => {
        await page.getByLabel('API key').fill(key);
        const [listed] = await Promise.all([
          page.waitForResponse((r) => r.url().startsWith(`${keyed.url}/products/`)),
          page.getByLabel('API key').press('Enter'),
        ]);
        assert.equal(listed.status(), 200);
        assert.equal(listed.request().headers().authorization, `Bearer ${key}`);
      };

      await enterKey(READ_KEY);
      await showsIds([String(existing.body.id)]);
      const create = `${keyed.url}/product/`;
      const forbidden = await submit({ name: 'not with a read key' }, 'Create product', create, 'POST');
      assert.equal(forbidden.status(), 403);
      await page.locator('#record-errors li').filter({ hasText: /^403 / }).waitFor();

      await enterKey(WRITE_KEY);
      const created = await submit({ name: 'made with a key' }, 'Create product', create, 'POST');
      assert.equal(created.status(), 201);
      const item = `/product/${((await created.json()) as { id: number }).id}/`;
      await page.getByRole('button', { name: 'Save changes' }).waitFor();
      const saved = await submit({ name: 'edited with a key' }, 'Save changes', `${keyed.url}${item}`, 'PUT');
      assert.equal(saved.status(), 200);
      assert.equal((await api('GET', item, undefined, withKey(READ_KEY))).body.name, 'edited with a key');
      await shot('keys-write');
      const deleted = await deleteShown(`${keyed.url}${item}`, 'DELETE');
      assert.equal(deleted.status(), 200);
      assert.equal((await api('GET', item, undefined, withKey(READ_KEY))).status, 404, 'gone, through the API');
    } finally {
      assert.equal(await keyed.stop(), 0);
      await keyedDb.drop();
    }
  });

  it('sends a batch of two operations from the Batch panel, as a plain POST, and shows the answer', async () => {
    await openConsole('products');
    // Newest first, so that the list shows what the batch made once it reloads.
    await page.locator('#sort').fill('-id');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    // A batch is a POST already: the switch sends it as it is, with no override header.
    await page.getByLabel(SWITCH_LABEL).setChecked(true);
    const operations = page.getByLabel('Operations, as a JSON array');
    const example = JSON.parse(await operations.inputValue()) as { method: string; path: string }[];
    assert.deepEqual(
      example.map((operation) => `${operation.method} ${operation.path}`),
      ['POST /product/', 'GET /product/$0.id/'],
      'the example: a create, and a read of it through a reference',
    );
    const answered = await press('Send batch', `${server.url}/batch/`, 'POST');
    assert.equal(answered.status(), 200);
    assert.equal(answered.request().headers()['http-x-http-method'], undefined);
    const [made, read] = (await answered.json()) as { status: number; body: { id: number; name: string } }[];
    assert.deepEqual([made?.status, read?.status], [201, 200]);
    assert.equal(read?.body.id, made?.body.id, 'the reference, filled in');
    await page
      .locator('#batch-status')
      .filter({ hasText: /^200: all 2 operations ran, in one transaction\.$/ })
      .waitFor();
    assert.match((await page.locator('#batch-answer').textContent()) ?? '', /"status": 201/);
    await page.getByRole('button', { name: `Edit product ${made?.body.id}`, exact: true }).waitFor();
    await shot('batch');

    // A batch the server refuses: its problem, and where it points.
    await operations.fill(JSON.stringify([{ method: 'GET', path: '/products/' }]));
    const refused = await press('Send batch', `${server.url}/batch/`, 'POST');
    assert.equal(refused.status(), 405);
    await page
      .locator('#batch-status.error')
      .filter({ hasText: /^405 .* \(at \/0\/method\)$/ })
      .waitFor();
    await page.getByLabel(SWITCH_LABEL).setChecked(false);
    await page.getByRole('button', { name: 'Example batch', exact: true }).click();
    assert.match(await operations.inputValue(), /"GET",\n\s*"path": "\/product\/\$0\.id\/"/);
  });

  it('made no request to any host but 127.0.0.1, and raised no script error', () => {
    const hosts = new Set(requests.map((r) => new URL(r.url()).hostname).filter((h) => h !== ''));
    assert.deepEqual([...hosts], ['127.0.0.1']);
    assert.ok(requests.length > 50, `${requests.length} requests recorded`);
    assert.deepEqual(pageErrors, []);
  });
});

/**
 * A fragment that is not valid percent-encoding (`#%E0%A4%A`), as a mistyped or truncated
 * link gives, opens the first collection instead of stopping the script; once per store,
 * since the console lists what the store holds.
 */
for (const kind of STORE_KINDS) {
  describe(`the console on a malformed fragment (${kind.name})`, () => {
    it('opens the first collection, with no script error, and later fragments still work', async () => {
      const db = await kind.create();
      const server = await startServer({ DATABASE_URL: db.url });
      const browser = await launchChromium();
      try {
        const made = await fetch(`${server.url}/user/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'reached through a broken link' }),
        });
        assert.equal(made.status, 201);
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        const opened = async (title: string) => {
          await page
            .locator('#list-title')
            .filter({ hasText: new RegExp(`^${title}$`) })
            .waitFor();
          await page
            .locator('#list-status')
            .filter({ hasText: /^Page \d+: |No .* here/ })
            .waitFor();
          assert.equal(await page.locator(`#collections button[aria-pressed="true"]`).textContent(), title);
        };
        for (const fragment of ['%E0%A4%A', '%', '%ZZ']) {
          await page.goto('about:blank');
          await page.goto(`${server.url}/#${fragment}`);
          await opened('Users');
          assert.equal(await page.locator('#records tbody tr').count(), 1, `#${fragment}`);
        }
        // A change of fragment alone: the same document, told by hashchange.
        await page.goto(`${server.url}/#products`);
        await opened('Products');
        await page.goto(`${server.url}/#%E0%A4%A`);
        await opened('Users');
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
        assert.equal(await server.stop(), 0);
        await db.drop();
      }
    });
  });
}
