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
import { recipientOf, startSmtp, type TestSmtp } from './helpers/smtp.js';
import { verifyingShop } from './helpers/verifying-shop.js';

const PROVIDER = { name: 'test', clientId: 'restock-console', clientSecret: 'a secret of the console' };

describe('the console’s account flows, in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'restock-console-flows-'));
  let idp: IdentityProvider;
  let smtp: TestSmtp;
  const shop = shopConsole(
    async () => {
      idp.serve([{ ...PROVIDER, redirectUri: `${shop.server.url}/users/auth/providers/test/callback/` }]);
    },
    async () => {
      idp = await startIdentityProvider();
      smtp = await startSmtp();
      const providers = join(dir, 'providers.json');
      const setting = { ...PROVIDER, issuer: idp.issuer, fields: { name: 'name' } };
      writeFileSync(providers, JSON.stringify({ users: [setting] }));
      return { SCHEMAS: verifyingShop(dir), AUTH_PROVIDERS: providers, SMTP_URL: smtp.url };
    },
  );
  after(async () => {
    await idp?.close();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { api, pageErrors } = shop;
  let server: RunningServer;
  let page: Page;
  beforeEach(() => {
    ({ server, page } = shop);
  });
  const accountSays = (text: RegExp | string) => page.locator('#account-status').filter({ hasText: text }).waitFor();
  const who = (text: RegExp | string) => page.locator('#who').filter({ hasText: text }).waitFor();
  /** The link of the next mail to `to` for `action`, past any other. */
  const linkFor = async (to: string, action: 'verify' | 'reset') => {
    for (;;) {
      const mail = await smtp.nextMail();
      const link = /https?:\/\/\S+[?&]action=(\w+)&\S+/.exec(mail.text ?? '');
      if (recipientOf(mail) === to && link?.[1] === action) return new URL(link[0]);
    }
  };

  it('signs up, then verifies the email from the link in its mail', async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByRole('button', { name: 'Create an account' }).click();
    const form = page.locator('form.sign-up');
    assert.equal(await page.evaluate('document.activeElement?.name'), 'name', 'focus on its first field');
    await form.getByLabel('Name').fill('Ada');
    await form.getByLabel('Email').fill('ada@example.com');
    await form.getByLabel('Password').fill('correct horse battery');
    await page.screenshot({ path: `${SHOTS}/sign-up.png` });
    await form.getByRole('button', { name: 'Create account' }).click();
    await who('Signed in as Ada, one of users (email not verified)');
    await accountSays('Account created. A link to verify your email is on its way.');
    assert.equal(await form.count(), 0, 'the form is gone');

    // Asked again: the newest link is the one that works.
    const first = await linkFor('ada@example.com', 'verify');
    await page.getByRole('button', { name: 'Send the verification link again' }).click();
    await accountSays('A new verification link is on its way.');
    const link = await linkFor('ada@example.com', 'verify');
    assert.notEqual(link.searchParams.get('token'), first.searchParams.get('token'));
    assert.equal(`${link.origin}${link.pathname}`, `${server.url}/console/`, 'the link opens the console');
    await page.goto(link.href);
    await accountSays('Your email is verified.');
    await who(/^Signed in as Ada, one of users$/);
    assert.equal(await page.getByRole('button', { name: 'Send the verification link again' }).isVisible(), false);
    assert.equal(new URL(page.url()).search, '', 'the token left the address');

    // The first link is spent by the second: said as a problem.
    await page.goto(first.href);
    await page.locator('#account-status.error').filter({ hasText: /^400 / }).waitFor();
    assert.deepEqual(pageErrors, []);
  });

  it('resets a forgotten password from its mail, then signs in with the new one', async () => {
    const bob = { name: 'Bob', email: 'bob@example.com', password: 'tr0ub4dor&3 staple' };
    assert.equal((await api('POST', '/user/', bob)).status, 201);
    await page.goto(`${server.url}/console/`);
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    const forgot = page.locator('form.forgot');
    await forgot.getByLabel('Email').fill('bob@example.com');
    await forgot.getByRole('button', { name: 'Send reset link' }).click();
    await accountSays('If bob@example.com is the email of an account, a link to reset its password is on its way.');
    assert.equal(await page.evaluate('document.activeElement?.name'), 'name', 'back to the sign-in form');

    const link = await linkFor('bob@example.com', 'reset');
    await page.goto(link.href);
    const form = page.locator('form.new-password');
    await form.waitFor();
    assert.equal(await page.evaluate('document.activeElement?.name'), 'password', 'focus on the new password');
    assert.equal(new URL(page.url()).search, '', 'the token left the address');
    await form.getByLabel('New password').fill('a brand new passphrase');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: `${SHOTS}/new-password-dark.png` });
    await form.getByRole('button', { name: 'Set password' }).click();
    await accountSays('Password changed; you are signed in.');
    await who('Signed in as Bob, one of users');

    // Signed out, the new password signs in through the form; the old one no longer does.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('form.sign-in').getByLabel('Email').fill('bob@example.com');
    await page.locator('form.sign-in').getByLabel('Password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await who('Signed in as Bob, one of users');
    const old = await api('POST', '/users/auth/', { email: 'bob@example.com', password: bob.password });
    assert.equal(old.status, 401);
    assert.deepEqual(pageErrors, []);
  });

  it('signs in with a provider: its button, the provider’s own pages, and back signed in', async () => {
    idp.people.set('grace-sub', { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' });
    await page.goto(`${server.url}/console/`);
    await page.getByRole('button', { name: 'Sign in with test' }).click();
    // The provider's development pages: a login, then a consent.
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.locator('input[name="login"]').fill('grace-sub');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    // Listening before the click: the way back and the exchange may be over before the click resolves.
    const exchange = page.waitForResponse((r) => r.url() === `${server.url}/users/auth/providers/exchange/`);
    await page.getByRole('button', { name: 'Continue' }).click();
    const [exchanged] = await Promise.all([exchange, who('Signed in as Grace Hopper, one of users')]);
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
