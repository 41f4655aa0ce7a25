/**
 * The browser console and the reference page in real Chromium (Debian's, through
 * playwright-core), against the real server process on an ephemeral port. Every request
 * the pages make is recorded: none may leave 127.0.0.1. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { RESOURCES } from '../src/resources.js';
import { launchChromium } from './helpers/browser.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { sqliteKind, type TestDatabase } from './helpers/stores.js';

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

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await sqliteKind.create();
    server = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: 'info' });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.on('request', (request) => requests.push(request));
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    assert.equal(await server?.stop(), 0);
    await db?.drop();
  });

  /** The API itself, as any client sees it. */
  const api = async (method: string, path: string, payload?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: payload === undefined ? {} : { 'content-type': 'application/json' },
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
      .filter({ hasText: /on this page|No .* here/ })
      .waitFor();
  };

  const shot = (name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

  for (const tunnel of [false, true]) {
    for (const { plural, singular } of RESOURCES) {
      const mode = tunnel ? 'switch on' : 'switch off';
      it(`creates, edits and deletes a ${singular} with the ${mode}`, async () => {
        await openConsole(plural);
        const toggle = page.getByLabel(SWITCH_LABEL);
        assert.ok(await toggle.isVisible(), 'the switch is visible');
        await toggle.setChecked(tunnel);

        // Create.
        await page.getByRole('button', { name: 'New record' }).click();
        const fields = { name: `${singular} made ${mode}`, price: 12.5, nested: { keep: 1, drop: 2 }, gone: true };
        await page.locator('#record-json').fill(JSON.stringify(fields, null, 2));
        const [created] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${server.url}/${singular}/` && r.request().method() === 'POST'),
          page.getByRole('button', { name: `Create ${singular}` }).click(),
        ]);
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
        await page.locator('#record-json').fill(JSON.stringify(edited, null, 2));
        const tunnelledBefore = await requestCount({
          route: `/${singular}/:id/`,
          method: 'PUT',
          tunnelled: String(tunnel),
          status: '200',
        });
        const [saved] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${server.url}${item}`),
          page.getByRole('button', { name: 'Save changes' }).click(),
        ]);
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

        // Delete, confirming the browser's dialog.
        page.once('dialog', (dialog) => dialog.accept());
        const [deleted] = await Promise.all([
          page.waitForResponse(
            (r) => r.url() === `${server.url}${item}` && r.request().method() === (tunnel ? 'POST' : 'DELETE'),
          ),
          page.getByRole('button', { name: 'Delete' }).click(),
        ]);
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
    await page.locator('#record-json').fill(JSON.stringify({ profile: { [longName]: 1 } }));
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/user/`),
      page.getByRole('button', { name: 'Create user' }).click(),
    ]);
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
    const withSchemas = await startServer({ DATABASE_URL: schemaDb.url, SCHEMAS: 'schemas/store' });
    try {
      await page.goto(`${withSchemas.url}/#users`);
      await page
        .locator('#list-status')
        .filter({ hasText: /No users here/ })
        .waitFor();
      await page.locator('#record-json').fill(JSON.stringify({ name: '', email: 'not an address' }));
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${withSchemas.url}/user/`),
        page.getByRole('button', { name: 'Create user' }).click(),
      ]);
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

  it('pages through a collection by following Link rel="next"', async () => {
    for (let i = 1; i <= 23; i++) await api('POST', '/product/', { name: `paged ${String(i).padStart(2, '0')}` });
    await openConsole('products');
    await page.locator('#limit').selectOption('10');
    await page.locator('#list-status').filter({ hasText: '10 products on this page; more on the next.' }).waitFor();
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
    const secondIds = await page.locator('#records tbody button.open').allTextContents();
    assert.equal(secondIds.length, 10);
    assert.ok(Number(secondIds[0]) > Number(firstIds.at(-1)), 'the next page starts after the first');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await firstId(firstIds[0], true);
    await shot('paging');
  });

  it('sends q= and sort=, and shows the problem instead of breaking while the server refuses them', async () => {
    await api('POST', '/user/', { name: 'needle in a haystack' });
    await openConsole('users');
    const rowsBefore = await page.locator('#records tbody tr').count();

    await page.getByLabel('Search').fill('needle');
    const [searched] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('q=needle')),
      page.getByRole('button', { name: 'Apply' }).click(),
    ]);
    await expectListOutcome(searched.status(), await searched.text(), rowsBefore, (rows) =>
      rows.every((row) => row.includes('needle')),
    );
    await shot('search');

    await page.getByLabel('Search').fill('');
    const [sorted] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('sort=name')),
      page.locator('#records thead').getByRole('button', { name: 'name', exact: true }).click(),
    ]);
    await expectListOutcome(sorted.status(), await sorted.text(), rowsBefore, (rows) => {
      const names = rows.map((row) => row.split('\t')[1] ?? '');
      return names.every((name, i) => i === 0 || (names[i - 1] ?? '') <= name);
    });
  });

  /**
   * The list after a search or sort: while the server refuses the parameter (400), the
   * problem's detail is on screen, the rows stay, and the controls remain; once it takes
   * it, the rows must satisfy `holds`.
   */
  async function expectListOutcome(
    status: number,
    text: string,
    rowsBefore: number,
    holds: (rows: string[]) => boolean,
  ) {
    if (status === 400) {
      const problem = JSON.parse(text) as { detail: string };
      await page.locator('#list-status.error').filter({ hasText: problem.detail }).waitFor();
      assert.equal(await page.locator('#records tbody tr').count(), rowsBefore, 'the rows stay');
      assert.ok(await page.getByLabel('Search').isVisible());
      assert.ok(await page.getByLabel('Sort').isVisible());
      return;
    }
    assert.equal(status, 200, text);
    await page.locator('#list-status:not(.error)').waitFor();
    const rows = await page
      .locator('#records tbody tr')
      .evaluateAll((trs) =>
        (trs as unknown as { cells: ArrayLike<{ textContent: string | null }> }[]).map((tr) =>
          Array.from(tr.cells, (c) => c.textContent).join('\t'),
        ),
      );
    assert.ok(holds(rows), rows.join('\n'));
  }

  it('sends the API key as a bearer token once one is given', async () => {
    await openConsole('users');
    await page.getByLabel('API key').fill('test-key-123');
    const [reload] = await Promise.all([
      page.waitForRequest((r) => r.url().startsWith(`${server.url}/users/`)),
      page.getByLabel('API key').press('Enter'),
    ]);
    assert.equal(reload.headers().authorization, 'Bearer test-key-123');
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

  it('is readable on a phone: one column, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await openConsole('products');
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
    assert.ok(operations >= RESOURCES.length * 6 + 7, `${operations} operations shown`);
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
  });

  it('made no request to any host but 127.0.0.1, and raised no script error', () => {
    const hosts = new Set(requests.map((r) => new URL(r.url()).hostname).filter((h) => h !== ''));
    assert.deepEqual([...hosts], ['127.0.0.1']);
    assert.ok(requests.length > 50, `${requests.length} requests recorded`);
    assert.deepEqual(pageErrors, []);
  });
});
