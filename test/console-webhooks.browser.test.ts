/**
 * The console's Webhooks panel in real Chromium against the real server process, delivering
 * to receivers on 127.0.0.1 that verify every signature: shown to a write key only; a webhook
 * made from the form, its secret shown once (and kept nowhere), its delivery listed; a
 * receiver that fails until the delivery dies and the webhook pauses, then Replay and Replay
 * since…; pause, resume, rotation, removal, a declared webhook left alone, a refusal.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './helpers/browser.js';
import { API_KEYS, READ_KEY, WRITE_KEY } from './helpers/keys.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { sqliteKind, type TestDatabase } from './helpers/stores.js';
import { type Receiver, startReceiver } from './helpers/verifying-receiver.js';

const SHOTS = 'test-artifacts/console';
const ZONE = 'Asia/Kolkata';

/** `ms` as a datetime-local input takes it in ZONE (`2026-03-01T17:30:05`). */
const localTime = (ms: number) => new Date(ms).toLocaleString('sv-SE', { timeZone: ZONE }).replace(' ', 'T');

describe('the Webhooks panel of the console, in Chromium', () => {
  let db: TestDatabase;
  let dir: string;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const receivers: Receiver[] = [];
  const pageErrors: string[] = [];
  const blocked: string[] = [];

  before(async () => {
    db = await sqliteKind.create();
    dir = mkdtempSync(join(tmpdir(), 'restock-console-webhooks-'));
    // One webhook comes with the deployment: the console lists it, but leaves its definition alone.
    const declared = await receiver();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const file = join(dir, 'webhooks.json');
    writeFileSync(file, JSON.stringify([{ name: 'billing', url: declared.url, collections: ['users'], secret }]));
    server = await startServer({
      DATABASE_URL: db.url,
      API_KEYS,
      WEBHOOKS: file,
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      // A failing delivery dies within half a second, retried every few hundredths of one.
      WEBHOOKS_RETRY_SECONDS: '0.5',
      WEBHOOKS_BACKOFF_SECONDS: '0.02',
    });
    browser = await launchChromium();
    // A zone ahead of UTC, half-hour offset and all: "Replay since…" takes a local time.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy/.test(message.text())) blocked.push(message.text());
    });
  });

  after(async () => {
    await browser?.close();
    assert.equal(await server?.stop(), 0);
    await Promise.all(receivers.map((r) => r.close()));
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function receiver(answer?: () => number): Promise<Receiver> {
    const made = await startReceiver(answer);
    receivers.push(made);
    return made;
  }

  const panel = () => page.locator('#webhooks');
  const status = (text: string | RegExp) => page.locator('#webhooks-status').filter({ hasText: text }).waitFor();
  const rowOf = (text: string) => page.locator('#webhook-list tbody tr').filter({ hasText: text });
  const deliveryRow = (messageId: string, state: string) =>
    page.locator(`#webhook-deliveries tbody tr[data-state="${state}"]`).filter({ hasText: messageId });
  /** Waits for the delivery `messageId` to show as `state`, and gives the HTTP status shown with it. */
  const shownAs = async (messageId: string, state: string) => {
    await deliveryRow(messageId, state).waitFor();
    return deliveryRow(messageId, state).locator('td').nth(3).textContent();
  };

  /** Enters `key` as the console's API key, and waits for the panel to read the webhooks with it. */
  async function useKey(key: string) {
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/webhooks/` && r.request().method() === 'GET'),
      page
        .getByLabel('API key')
        .fill(key)
        .then(() => page.getByLabel('API key').press('Enter')),
    ]);
    return answer.status();
  }

  /** Makes a webhook of products from the form; resolves with its id and the secret the page shows. */
  async function createFromForm(url: string) {
    const form = page.locator('#webhook-form');
    await form.getByLabel('URL').fill(url);
    await form.getByRole('group', { name: 'Collections' }).getByLabel('products').check();
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/webhooks/` && r.request().method() === 'POST'),
      form.getByRole('button', { name: 'Create webhook' }).click(),
    ]);
    assert.equal(answer.status(), 201);
    const { id } = (await answer.json()) as { id: number };
    await status(`Created webhook ${id}.`);
    const secret = (await page.locator('#webhook-secret code').textContent()) ?? '';
    return { id, secret };
  }

  /** A product made through the API, as any client makes one. */
  async function createProduct(name: string) {
    const response = await fetch(`${server.url}/product/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${WRITE_KEY}` },
      body: JSON.stringify({ name, price: 1 }),
    });
    assert.equal(response.status, 201);
  }

  it('shows the panel to a write key only', async () => {
    const [asked] = await Promise.all([page.waitForResponse(`${server.url}/webhooks/`), page.goto(`${server.url}/`)]);
    assert.equal(asked.status(), 401);
    assert.equal(await panel().isVisible(), false, 'no key: nothing to manage');
    assert.equal(await useKey(READ_KEY), 403);
    assert.equal(await panel().isVisible(), false, 'a read key may not manage webhooks');
    assert.equal(await useKey(WRITE_KEY), 200);
    await panel().waitFor();
    await rowOf('declared as billing').waitFor();
  });

  it('makes a webhook from the form, shows its secret once, and lists its delivery as delivered', async () => {
    const hook = await receiver();
    const { id, secret } = await createFromForm(hook.url);
    assert.match(secret, /^whsec_/);
    await page.locator('#webhook-secret').filter({ hasText: 'it will not be shown again' }).waitFor();
    const kept = (await page.evaluate(
      'JSON.stringify([{ ...localStorage }, { ...sessionStorage }, location.href])',
    )) as string;
    assert.ok(!kept.includes(secret), 'the secret is in the page only: not in storage, nor in the address');
    hook.secret = secret;
    await rowOf(hook.url).filter({ hasText: 'active' }).waitFor();
    await page.getByRole('button', { name: `Deliveries of webhook ${id}` }).click();
    await page.getByRole('heading', { name: `Deliveries of webhook ${id}` }).waitFor();

    await createProduct('Teapot');
    await hook.until(() => hook.accepted.length > 0);
    const [delivered] = hook.accepted;
    assert.equal(delivered?.verified, true, 'signed with the secret the page showed');
    assert.equal(delivered?.payload.type, 'products.created');
    assert.equal(await shownAs(delivered.id, 'delivered'), '204');

    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.locator('#webhook-secret').isVisible(), false);
    assert.equal(await page.locator('#webhook-secret code').textContent(), '', 'gone from the page too');
  });

  it('shows a delivery that died and the webhook paused, and replays it to the receiver once it answers', async () => {
    const hook = await receiver(() => 503);
    const { id, secret } = await createFromForm(hook.url);
    hook.secret = secret;
    await page.getByRole('button', { name: `Deliveries of webhook ${id}` }).click();
    await createProduct('Kettle');
    await hook.until(() => hook.received.length > 0);
    const messageId = hook.received[0]?.id as string;
    const madeAt = Date.parse(hook.received[0]?.payload.timestamp as string);
    assert.equal(await shownAs(messageId, 'dead'), '503');
    await rowOf(hook.url).filter({ hasText: 'paused' }).waitFor();
    mkdirSync(SHOTS, { recursive: true });
    await panel().screenshot({ path: `${SHOTS}/webhooks-dead.png` });

    hook.answer = () => 204;
    const [replayed] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/webhook/${id}/replay/`),
      page.getByRole('button', { name: `Replay ${messageId}` }).click(),
    ]);
    assert.equal(replayed.status(), 202);
    await status(`Replaying ${messageId}.`);
    await hook.until(() => hook.accepted.some((delivery) => delivery.id === messageId));
    assert.ok(hook.accepted.every((delivery) => delivery.verified));
    assert.equal(await shownAs(messageId, 'delivered'), '204');
    await rowOf(hook.url).filter({ hasText: 'active' }).waitFor();

    // Every change since a local time (to the second: the one before the change), sent in UTC.
    const since = Math.floor(madeAt / 1000) * 1000 - 1000;
    await page.getByLabel('Replay every change since').fill(localTime(since));
    const [again] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/webhook/${id}/replay/`),
      page.getByRole('button', { name: 'Replay since…' }).click(),
    ]);
    assert.equal(again.status(), 202);
    assert.deepEqual(again.request().postDataJSON(), { since: new Date(since).toISOString() });
    await hook.until(() => hook.accepted.filter((delivery) => delivery.id === messageId).length >= 2);
  });

  it('pauses, resumes, rotates the secret of and deletes a webhook, but not a declared one', async () => {
    const hook = await receiver();
    const { id } = await createFromForm(hook.url);
    await page.getByRole('button', { name: `Pause webhook ${id}` }).click();
    await status(`Paused webhook ${id}.`);
    await rowOf(hook.url).filter({ hasText: 'paused through the API' }).waitFor();
    await page.getByRole('button', { name: `Resume webhook ${id}` }).click();
    await status(`Resumed webhook ${id}.`);
    await rowOf(hook.url).filter({ hasText: 'active' }).waitFor();

    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: `Rotate the secret of webhook ${id}` }).click();
    await status(`Rotated the secret of webhook ${id}.`);
    await page
      .locator('#webhook-secret')
      .filter({ hasText: `The new secret of webhook ${id}` })
      .waitFor();
    hook.secret = (await page.locator('#webhook-secret code').textContent()) ?? '';
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await createProduct('Cup');
    await hook.until(() => hook.accepted.length > 0);
    assert.equal(hook.accepted[0]?.verified, true, 'signed with the new secret');

    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: `Delete webhook ${id}` }).click();
    await status(`Deleted webhook ${id}.`);
    assert.equal(await rowOf(hook.url).count(), 0);

    const declared = rowOf('declared as billing');
    assert.equal(await declared.getByRole('button', { name: /^(Delete|Pause|Rotate)/ }).count(), 0);
    assert.equal(await declared.getByRole('button', { name: /^Deliveries of webhook/ }).count(), 1);
  });

  it('says what the API refused, with a line per fault', async () => {
    const form = page.locator('#webhook-form');
    await form.getByLabel('URL').fill('ftp://example.com/hook');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/webhooks/` && r.request().method() === 'POST'),
      form.getByRole('button', { name: 'Create webhook' }).click(),
    ]);
    assert.equal(answer.status(), 422);
    await page.locator('#webhooks-status.error').filter({ hasText: /^422 / }).waitFor();
    await form.locator('.errors li.field-error').filter({ hasText: '/url' }).waitFor();
    await form.locator('.errors li.field-error').filter({ hasText: '/collections' }).waitFor();
    assert.equal(await page.locator('#webhook-secret').isVisible(), false, 'no secret for what was not made');
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(blocked, []);
  });
});
