/**
 * The client's account flows against a real restock on a port, on both stores, with a real
 * SMTP server (./helpers/smtp.ts) and a real OpenID provider (./helpers/identity-provider.ts):
 * me(), a verification mailed and confirmed, a password reset that signs in, an email
 * change confirmed from the new address, and a provider sign-in finished with its code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createClient, ProblemError } from '../packages/client/src/index.js';
import { defaultConfig } from '../src/config/index.js';
import { providerSettings } from '../src/config/provider-settings.js';
import { buildApp } from '../src/http/app.js';
import { type IdentityProvider, signInAtProvider, startIdentityProvider } from './helpers/identity-provider.js';
import { PASSWORDS, shopSettings } from './helpers/shop-accounts.js';
import { recipientOf, startSmtp, type TestSmtp, tokenOf } from './helpers/smtp.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import { verifyingShop } from './helpers/verifying-shop.js';

interface User {
  name: string;
  email: string;
  password?: string;
  role?: 'customer' | 'staff';
}
type Shop = { users: User };

const PROVIDER = { name: 'test', clientId: 'restock-client', clientSecret: 'a secret of the client' };

const isProblem = (status: number, kind: string) => (error: unknown) =>
  error instanceof ProblemError && error.status === status && error.kind === kind;

for (const kind of STORE_KINDS) {
  describe(`the client's account flows (${kind.name})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-client-flows-'));
    let db: TestDatabase;
    let idp: IdentityProvider;
    let smtp: TestSmtp;
    let app: FastifyInstance;
    let origin: string;
    const client = () => createClient<Shop>({ baseUrl: origin });
    /** A client signed in as a new account with `email`, whose password is `first passphrase`. */
    const signUp = async (email: string) => {
      const made = client();
      await made
        .collection('users')
        .create({ name: email.split('@')[0] as string, email, password: 'first passphrase' });
      await made.auth().signIn({ email, password: 'first passphrase' });
      return made;
    };
    /** The next mail to `to` whose link is for `action`, past any other (a sign-up's verification, say). */
    const mailFor = async (to: string, action: 'verify' | 'reset' | 'email') => {
      for (;;) {
        const mail = await smtp.nextMail();
        if (recipientOf(mail) === to && (mail.text ?? '').includes(`action=${action}&`)) return mail;
      }
    };

    before(async () => {
      db = await kind.create();
      idp = await startIdentityProvider();
      smtp = await startSmtp();
      const providers = join(dir, 'providers.json');
      writeFileSync(
        providers,
        JSON.stringify({ users: [{ ...PROVIDER, issuer: idp.issuer, fields: { name: 'name' } }] }),
      );
      app = await buildApp({
        config: defaultConfig({
          ...shopSettings({ schemas: verifyingShop(dir) }),
          smtpUrl: smtp.url,
          databaseUrl: db.url,
          maxEventLoopDelay: 0,
          authProviders: providerSettings(providers, 'AUTH_PROVIDERS'),
        }),
        logStream: false,
      });
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
      idp.serve([{ ...PROVIDER, redirectUri: `${origin}/users/auth/providers/test/callback/` }]);
      await client().collection('users').create({ name: 'Ada', email: 'ada@example.com', password: PASSWORDS.ada });
    });
    after(async () => {
      await app?.close();
      await idp?.close();
      await smtp?.close();
      await db?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers who is signed in with me(), and 401 when no one is', async () => {
      const ada = client();
      await assert.rejects(ada.auth().me(), isProblem(401, 'unauthorized'));
      const signedIn = await ada.auth().signIn({ email: 'ada@example.com', password: PASSWORDS.ada });
      const me = await ada.auth().me();
      assert.deepEqual([me.id, me.email, 'password' in me], [signedIn.id, 'ada@example.com', false]);
    });

    it('verifies the email with the mailed token, asked for again; the session then says so', async () => {
      const vic = await signUp('vic@example.com');
      assert.equal(claimsOf(vic.auth().token).verified, false);
      await mailFor('vic@example.com', 'verify');
      await vic.auth().requestVerification();
      const token = tokenOf(await mailFor('vic@example.com', 'verify'));
      await vic.auth().confirmVerification(token);
      assert.equal(claimsOf(vic.auth().token).verified, true, 'the session was renewed');
      await assert.rejects(vic.auth().confirmVerification(token), isProblem(400, 'invalid-token'));

      // Signed out, by address: a new link for an account not yet verified.
      await signUp('val@example.com');
      await mailFor('val@example.com', 'verify');
      await client().auth().requestVerification('val@example.com');
      await client()
        .auth()
        .confirmVerification(tokenOf(await mailFor('val@example.com', 'verify')));
    });

    it('resets a forgotten password from its mail, signing in with it or not', async () => {
      await signUp('rita@example.com');
      const rita = client();
      await rita.auth().requestPasswordReset('rita@example.com');
      await client().auth().requestPasswordReset('nobody@example.com');
      const token = tokenOf(await mailFor('rita@example.com', 'reset'));
      const record = await rita.auth().confirmPasswordReset(token, 'second passphrase', { signIn: true });
      assert.deepEqual([record?.email, rita.auth().signedIn], ['rita@example.com', true]);
      await assert.rejects(
        rita.auth().confirmPasswordReset(token, 'third passphrase'),
        isProblem(400, 'invalid-token'),
      );
      const signIn = (password: string) => client().auth().signIn({ email: 'rita@example.com', password });
      await assert.rejects(signIn('first passphrase'), isProblem(401, 'invalid-credentials'));
      assert.equal((await signIn('second passphrase')).email, 'rita@example.com');

      await rita.auth().requestPasswordReset('rita@example.com');
      const again = tokenOf(await mailFor('rita@example.com', 'reset'));
      const quiet = client();
      assert.equal(await quiet.auth().confirmPasswordReset(again, 'third passphrase'), undefined);
      assert.equal(quiet.auth().signedIn, false);
      assert.equal((await signIn('third passphrase')).email, 'rita@example.com');
    });

    it('changes the email once the new address confirms it', async () => {
      const lin = await signUp('lin@example.com');
      assert.equal((await lin.auth().changeEmail('lin@new.example')).email, 'lin@example.com', 'not yet');
      const token = tokenOf(await mailFor('lin@new.example', 'email'));
      assert.equal((await lin.auth().confirmEmailChange(token)).email, 'lin@new.example');
      assert.equal(lin.auth().record?.email, 'lin@new.example', 'the session was renewed');
      await assert.rejects(client().auth().changeEmail('x@example.com'), /not signed in to users/);
    });

    it('lists the providers, and signs in with one: its URL, the provider, the code exchanged once', async () => {
      idp.people.set('grace-sub', { email: 'grace@example.com', email_verified: true, name: 'Grace' });
      const grace = client();
      assert.deepEqual(await grace.auth().providers(), [{ name: 'test' }]);
      const redirect = `${origin}/console/?from=app`;
      const url = grace.auth().signInWithProvider('test', { redirect });
      assert.equal(url.href, `${origin}/users/auth/providers/test/?redirect=${encodeURIComponent(redirect)}`);
      const started = await fetch(url, { redirect: 'manual' });
      assert.equal(started.status, 302);
      const callback = await signInAtProvider(started.headers.get('location') as string, 'grace-sub', idp.issuer);
      const landed = await fetch(callback, { redirect: 'manual' });
      const back = new URL(landed.headers.get('location') as string);
      assert.equal(`${back.origin}${back.pathname}${back.searchParams.get('from')}`, `${origin}/console/app`);
      assert.equal(back.searchParams.get('error'), null);
      const code = back.searchParams.get('code') as string;

      const record = await grace.auth().completeProviderSignIn(code);
      assert.deepEqual(
        [record.email, grace.auth().signedIn, (await grace.auth().me()).id],
        ['grace@example.com', true, record.id],
      );
      await assert.rejects(client().auth().completeProviderSignIn(code), isProblem(400, 'invalid-provider-flow'));
      assert.throws(() => grace.auth().signInWithProvider('test'), /a redirect URL is needed outside a browser/);
    });
  });
}

/** The claims of an access token (its middle part). */
function claimsOf(token: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from((token ?? '').split('.')[1] ?? '', 'base64url').toString('utf8'));
}
