/**
 * Sign-in with an outside provider, on every store, over real HTTP, against a real OpenID
 * provider (oidc-provider, ./helpers/identity-provider.ts) with two clients, alpha and beta:
 * the first sign-in creates the account, another client links to it by a verified email,
 * an unverified email takes nothing over; a wrong `state`, a replayed callback or code, a
 * wrong `nonce` and an expired code all fail; no open redirect; and the server's log, at
 * trace level, holds none of the flow's secrets. Time is the flows' clock, moved by the
 * test: nothing waits for it. Also AUTH_PROVIDERS' faults, each refused at start.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { type Config, ConfigError, defaultConfig } from '../src/config/index.js';
import { providerSettings } from '../src/config/provider-settings.js';
import { buildApp } from '../src/http/app.js';
import { type IdentityProvider, signInAtProvider, startIdentityProvider } from './helpers/identity-provider.js';
import { shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const CLIENTS = ['alpha', 'beta'] as const;
type Client = (typeof CLIENTS)[number];

/** Writes a providers file in a folder of its own; the folder is removed after the file's tests. */
function providersFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-providers-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'providers.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

for (const kind of STORE_KINDS) {
  describe(`sign-in with a provider (${kind.name})`, () => {
    let db: TestDatabase;
    let idp: IdentityProvider;
    let app: FastifyInstance;
    let base: string;
    let clock = Date.now();
    let configOf: () => Config;
    const logs: string[] = [];
    /** Every secret the flows handed out, none of which the log may hold. */
    const secrets = new Set<string>();

    before(async () => {
      db = await kind.create();
      idp = await startIdentityProvider();
      const providers = CLIENTS.map((name) => ({
        name,
        issuer: idp.issuer,
        clientId: name,
        clientSecret: `${name} secret`,
        fields: { name: 'name' },
      }));
      // A provider nothing answers for: restock starts all the same, and says so when it is used.
      const down = { name: 'down', issuer: 'http://127.0.0.1:1', clientId: 'down', clientSecret: 'down' };
      const file = providersFile({ users: [...providers, down] });
      const authProviders = providerSettings(file, 'AUTH_PROVIDERS');
      configOf = () =>
        defaultConfig({
          ...shopSettings(),
          maxEventLoopDelay: 0,
          databaseUrl: db.url,
          logLevel: 'trace',
          authProviders,
        });
      app = await buildApp({
        config: configOf(),
        logStream: { write: (line) => logs.push(line) },
        now: () => clock,
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      idp.serve(
        CLIENTS.map((name) => ({
          clientId: name,
          clientSecret: `${name} secret`,
          redirectUri: `${base}/users/auth/providers/${name}/callback/`,
        })),
      );
    });
    after(async () => {
      await app?.close();
      await idp?.close();
      await db?.drop();
    });

    const appUrl = () => `${base}/console/?from=provider`;

    /** Begins a sign-in with `client`: the provider's authorization URL restock redirected to. */
    async function begin(client: string, redirect = appUrl()): Promise<Response> {
      return fetch(`${base}/users/auth/providers/${client}/?redirect=${encodeURIComponent(redirect)}`, {
        redirect: 'manual',
      });
    }

    /** Follows restock's redirect to the provider, signs in there as `sub`: the callback URL it sends back. */
    async function atProvider(client: Client, sub: string | null, tamper?: (url: URL) => void): Promise<URL> {
      const started = await begin(client);
      assert.equal(started.status, 302);
      const url = new URL(started.headers.get('location') as string);
      assert.equal(url.origin, idp.issuer);
      secrets.add(url.searchParams.get('state') as string);
      tamper?.(url);
      const back = await signInAtProvider(url.href, sub, idp.issuer);
      const code = back.searchParams.get('code');
      if (code) secrets.add(code);
      return back;
    }

    /** restock's answer to the callback: where it sends the browser (the app, with `code` or `error`). */
    async function land(callback: URL): Promise<URL> {
      const answer = await fetch(callback, { redirect: 'manual' });
      assert.equal(answer.status, 302, await answer.text());
      const landing = new URL(answer.headers.get('location') as string);
      assert.equal(landing.href.startsWith(appUrl()), true, landing.href);
      const code = landing.searchParams.get('code');
      if (code) secrets.add(code);
      return landing;
    }

    async function exchange(code: string | null) {
      const answer = await fetch(`${base}/users/auth/providers/exchange/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
      const body = (await answer.json()) as Record<string, unknown>;
      for (const key of ['token', 'refreshToken'] as const) if (typeof body[key] === 'string') secrets.add(body[key]);
      return { status: answer.status, body, cacheControl: answer.headers.get('cache-control') };
    }

    /** A whole sign-in as `sub` with `client`: the exchange's answer. */
    async function signIn(client: Client, sub: string) {
      const landing = await land(await atProvider(client, sub));
      assert.equal(landing.searchParams.get('error'), null, landing.href);
      const signed = await exchange(landing.searchParams.get('code'));
      assert.equal(signed.status, 200, JSON.stringify(signed.body));
      return signed.body as { token: string; refreshToken: string; expiresIn: number; record: Record<string, unknown> };
    }

    it('lists its providers', async () => {
      const answer = await fetch(`${base}/users/auth/providers/`);
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), [{ name: 'alpha' }, { name: 'beta' }, { name: 'down' }]);
      assert.equal((await fetch(`${base}/users/auth/providers/gamma/?redirect=${appUrl()}`)).status, 404);
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      for (const path of ['/', '/{name}/', '/{name}/callback/', '/exchange/']) {
        assert.ok(document.paths[`/users/auth/providers${path}`], path);
      }
    });

    it('answers 503 while a provider cannot be reached', async () => {
      const answer = await begin('down');
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.get('retry-after'), '30');
    });

    it('creates the account on a first sign-in, verified, its fields from the claims; the subject signs in again through its link', async () => {
      idp.people.set('nia', { email: 'nia@example.com', email_verified: true, name: 'Nia' });
      const first = await signIn('alpha', 'nia');
      assert.equal(first.record.email, 'nia@example.com');
      assert.equal(first.record.name, 'Nia');
      assert.equal(first.record.password, undefined);
      assert.equal(first.expiresIn, 15 * 60);
      const claims = decodeJwt(first.token);
      assert.equal(claims.sub, String(first.record.id));
      assert.equal(claims.verified, true);
      const own = await fetch(`${base}/user/${first.record.id}/`, {
        headers: { authorization: `Bearer ${first.token}` },
      });
      assert.equal(own.status, 200, 'the token is an account token like any other');

      // The provider's email changes: the link, not the email, finds the account.
      idp.people.set('nia', { email: 'nia.new@example.com', email_verified: true, name: 'Nia' });
      const again = await signIn('alpha', 'nia');
      assert.equal(again.record.id, first.record.id);
      assert.equal(again.record.email, 'nia@example.com', 'a sign-in changes nothing of the account');
    });

    it('links the second client to the account whose verified email the provider verified', async () => {
      idp.people.set('lin', { email: 'lin@example.com', email_verified: true, name: 'Lin' });
      const viaAlpha = await signIn('alpha', 'lin');
      const viaBeta = await signIn('beta', 'lin');
      assert.equal(viaBeta.record.id, viaAlpha.record.id);
    });

    it('never lets an unverified email take over an account, on either side', async () => {
      const made = await fetch(`${base}/user/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ula', email: 'ula@example.com', password: 'ula has a password' }),
      });
      assert.equal(made.status, 201);
      const ula = (await made.json()) as Record<string, unknown>;
      // The provider does not vouch for the address: refused.
      idp.people.set('mallory', { email: 'ULA@example.com', email_verified: false, name: 'Mallory' });
      assert.equal((await land(await atProvider('alpha', 'mallory'))).searchParams.get('error'), 'account-exists');
      // The provider vouches for it, but the account never proved it owns it: refused too.
      idp.people.set('mallory', { email: 'ula@example.com', email_verified: true, name: 'Mallory' });
      const landing = await land(await atProvider('beta', 'mallory'));
      assert.equal(landing.searchParams.get('error'), 'account-exists');
      assert.equal(landing.searchParams.get('code'), null);
      const signedIn = await fetch(`${base}/users/auth/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ula@example.com', password: 'ula has a password' }),
      });
      const body = (await signedIn.json()) as { record: Record<string, unknown> };
      assert.deepEqual(body.record, ula, 'the account is as it was');

      // No account has the address: a new one, not verified.
      idp.people.set('uma', { email: 'uma@example.com', email_verified: false, name: 'Uma' });
      const uma = await signIn('alpha', 'uma');
      assert.equal(decodeJwt(uma.token).verified, false);
    });

    it('sends the app an error when the person cancels at the provider', async () => {
      assert.equal((await land(await atProvider('alpha', null))).searchParams.get('error'), 'denied');
    });

    it('sends the app an error when the claims make no valid account', async () => {
      idp.people.set('nameless', { email: 'nameless@example.com', email_verified: true });
      assert.equal((await land(await atProvider('alpha', 'nameless'))).searchParams.get('error'), 'account-refused');
    });

    it('refuses a wrong state, a callback replayed, and a code replayed under a new state', async () => {
      idp.people.set('ray', { email: 'ray@example.com', email_verified: true, name: 'Ray' });
      const callback = await atProvider('alpha', 'ray');
      const forged = new URL(callback);
      forged.searchParams.set('state', 'A'.repeat(43));
      const wrong = await fetch(forged, { redirect: 'manual' });
      assert.equal(wrong.status, 400);
      assert.equal(((await wrong.json()) as { type: string }).type, '/problems/invalid-provider-flow');

      assert.notEqual((await land(callback)).searchParams.get('code'), null, 'the real callback still works');
      const replayed = await fetch(callback, { redirect: 'manual' });
      assert.equal(replayed.status, 400, 'a state works once');

      // A new flow's state, the old flow's code: the provider refuses a code it gave before.
      const started = await begin('alpha');
      const state = new URL(started.headers.get('location') as string).searchParams.get('state') as string;
      secrets.add(state);
      const reused = new URL(callback);
      reused.searchParams.set('state', state);
      assert.equal((await land(reused)).searchParams.get('error'), 'provider-error');
    });

    it('refuses an ID token whose nonce is not the one sent', async () => {
      idp.people.set('nat', { email: 'nat@example.com', email_verified: true, name: 'Nat' });
      const callback = await atProvider('alpha', 'nat', (url) => url.searchParams.set('nonce', 'not the nonce sent'));
      assert.equal((await land(callback)).searchParams.get('error'), 'provider-error');
    });

    it('lets another instance on the database finish a sign-in this one began', async () => {
      const other = await buildApp({
        config: configOf(),
        logStream: { write: (line) => logs.push(line) },
        now: () => clock,
      });
      try {
        idp.people.set('ivy', { email: 'ivy@example.com', email_verified: true, name: 'Ivy' });
        const callback = await atProvider('alpha', 'ivy');
        const answer = await other.inject({ url: `${callback.pathname}${callback.search}` });
        assert.equal(answer.statusCode, 302, answer.body);
        const code = new URL(answer.headers.location as string).searchParams.get('code');
        assert.ok(code);
        secrets.add(code);
        assert.equal((await exchange(code)).status, 200, 'and this one exchanges its code');
      } finally {
        await other.close();
      }
    });

    it('exchanges a code once, within its minute; a sign-in not finished in 10 minutes expires', async () => {
      idp.people.set('eve', { email: 'eve@example.com', email_verified: true, name: 'Eve' });
      const code = (await land(await atProvider('alpha', 'eve'))).searchParams.get('code');
      assert.equal((await exchange(code)).status, 200);
      const again = await exchange(code);
      assert.equal(again.status, 400);
      assert.equal(again.body.type, '/problems/invalid-provider-flow');
      assert.equal((await exchange('not a code')).status, 400);

      const late = (await land(await atProvider('alpha', 'eve'))).searchParams.get('code');
      clock += 61_000;
      const expired = await exchange(late);
      assert.deepEqual([expired.status, expired.body.type], [400, '/problems/invalid-provider-flow']);

      const slow = await atProvider('alpha', 'eve');
      clock += 10 * 60_000 + 1;
      assert.equal((await fetch(slow, { redirect: 'manual' })).status, 400);
    });

    it('sends the browser back only to this server or the app, never elsewhere', async () => {
      for (const redirect of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)', 'relative/']) {
        const answer = await begin('alpha', redirect);
        assert.equal(answer.status, 400, redirect);
        assert.equal(((await answer.json()) as { type: string }).type, '/problems/invalid-query');
      }
      const missing = await fetch(`${base}/users/auth/providers/alpha/`, { redirect: 'manual' });
      assert.equal(missing.status, 400);
    });

    it('writes no state, code or token into its log, at trace level', () => {
      const text = logs.join('\n');
      assert.ok(text.includes('/users/auth/providers/alpha/callback/'), 'the log saw the callbacks');
      assert.ok(secrets.size > 20);
      for (const secret of secrets) {
        assert.equal(text.includes(secret), false, `the log holds a secret: ${secret.slice(0, 6)}…`);
      }
    });
  });
}

describe('AUTH_PROVIDERS', () => {
  const provider = { name: 'idp', issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' };
  const parse = (content: unknown) => providerSettings(providersFile(content), 'AUTH_PROVIDERS');

  it('reads each collection’s providers, openid always among the scopes', () => {
    const settings = parse({ users: [{ ...provider, scopes: ['email'] }] });
    assert.deepEqual(settings.users?.[0]?.scopes, ['openid', 'email']);
    assert.deepEqual(providerSettings('', 'AUTH_PROVIDERS'), {});
  });

  it('refuses each fault of the file in one line', () => {
    const faults: [unknown, RegExp][] = [
      ['not json', /is not JSON/],
      [[provider], /must hold an object/],
      [{ users: [] }, /users: must be a non-empty array/],
      [{ users: [{ ...provider, issuer: undefined }] }, /idp: "issuer" must be a URL/],
      [{ users: [{ ...provider, issuer: 'http://idp.example' }] }, /must be an https:\/\/ URL/],
      [{ users: [{ ...provider, clientSecret: '' }] }, /"clientSecret" must be a non-empty string/],
      [{ users: [provider, provider] }, /two providers are named "idp"/],
      [{ users: [{ ...provider, name: 'Bad Name' }] }, /"name" must be lower-case/],
      [{ users: [{ ...provider, name: 'exchange' }] }, /a path of its own/],
      [{ users: [{ ...provider, scope: ['email'] }] }, /unknown key "scope"/],
      [{ users: [{ ...provider, fields: { name: 7 } }] }, /"fields" must map/],
    ];
    for (const [content, message] of faults) {
      assert.throws(
        () => parse(content),
        (error: Error) => error instanceof ConfigError && message.test(error.message),
      );
      assert.throws(
        () => parse(content),
        (error: Error) => !error.message.includes('\n'),
      );
    }
    assert.throws(() => providerSettings('/no/such/file.json', 'AUTH_PROVIDERS'), /cannot read/);
  });

  it('refuses, at start, a collection that is not there or holds no accounts, and a field restock owns', async () => {
    const faults: [unknown, RegExp][] = [
      [{ people: [provider] }, /AUTH_PROVIDERS: people: no collection has this plural/],
      [{ products: [provider] }, /AUTH_PROVIDERS: products: holds no accounts/],
      [{ users: [{ ...provider, fields: { password: 'sub' } }] }, /cannot fill "password"/],
      [{ users: [{ ...provider, fields: { id: 'sub' } }] }, /cannot fill "id"/],
    ];
    for (const [content, message] of faults) {
      const config = defaultConfig({
        ...shopSettings(),
        databaseUrl: 'sqlite::memory:',
        authProviders: parse(content),
      });
      await assert.rejects(buildApp({ config, logStream: false }), message);
    }
  });
});
