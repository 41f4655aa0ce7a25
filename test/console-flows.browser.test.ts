/**
 * The console's account flows in real Chromium against the real server process, a real SMTP
 * server (smtp-server, ./helpers/smtp.ts) and a real OpenID provider (oidc-provider,
 * ./helpers/identity-provider.ts): sign-up on a collection that proves addresses, its mail's
 * link opened in the browser; a forgotten password, its mail, its link, a new password and a
 * sign-in with it; and a provider's button, through the provider's own sign-in pages and back.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type IdentityProvider, startIdentityProvider } from './helpers/identity-provider.js';
import type { RunningServer } from './helpers/server.js';
import { SHOTS, shopConsole } from './helpers/shop-console.js';
import { verifyingShop } from './helpers/verifying-shop.js';

const PROVIDER = { name: 'test', clientId: 'restock-console', clientSecret: 'a secret of the console' };

describe('the console’s account flows, in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'restock-console-flows-'));
  let idp: IdentityProvider;
  const shop = shopConsole(
    async () => {
      idp.serve([{ ...PROVIDER, redirectUri: `${shop.server.url}/users/auth/providers/test/callback/` }]);
    },
    async () => {
      idp = await startIdentityProvider();
      const providers = join(dir, 'providers.json');
      const setting = { ...PROVIDER, issuer: idp.issuer, fields: { name: 'name' } };
      writeFileSync(providers, JSON.stringify({ users: [setting] }));
      return { SCHEMAS: verifyingShop(dir), AUTH_PROVIDERS: providers };
    },
  );
  after(async () => {
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { pageErrors } = shop;
  let server: RunningServer;
  let page: Page;
  beforeEach(() => {
    ({ server, page } = shop);
  });
  const accountSays = (text: RegExp | string) => page.locator('#account-status').filter({ hasText: text }).waitFor();
  const who = (text: RegExp | string) => page.locator('#who').filter({ hasText: text }).waitFor();

  it('signs in with a provider: its button, the provider’s own pages, and back signed in', async () => {
    idp.people.set('grace-sub', { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' });
    await page.goto(`${server.url}/console/`);
    await page.getByRole('button', { name: 'Sign in with test' }).click();
    // The provider's development pages: a login, then a consent.
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.locator('input[name="login"]').fill('grace-sub');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    const [exchanged] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/users/auth/providers/exchange/`),
      who('Signed in as Grace Hopper, one of users'),
    ]);
    assert.equal(exchanged.status(), 200);
    assert.equal(new URL(page.url()).search, '', 'the code left the address');
    assert.equal(await page.evaluate('document.activeElement?.id'), 'sign-out');
    await page.screenshot({ path: `${SHOTS}/provider-signed-in.png`, fullPage: true });
    assert.deepEqual(pageErrors, []);
  });

  it('says why a provider sign-in came back without a code', async () => {
    await page.goto(`${server.url}/console/?collection=users&error=denied`);
    await page.locator('#account-status.error').filter({ hasText: 'it was cancelled at the provider' }).waitFor();
    assert.equal(new URL(page.url()).search, '');
    assert.deepEqual(pageErrors, []);
  });
});
