/**
 * Password reset over the real app on every store, the example shop sending mail to a real
 * SMTP server (./helpers/smtp.ts): the request answers alike whatever the address and mails
 * only an account's; the token sets the password once and signs every session out; a used,
 * expired, superseded, foreign or made-up token is one 400; requests are limited per address
 * and per client; without mail, 503. Then a real server at LOG_LEVEL=trace, through a reset
 * and an email change: no line holds a token or a link.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { ADDRESS_MAIL_SPREAD_MS, addressMailDue } from '../src/records/accounts/flows/password-reset.js';
import { refreshTokenHash } from '../src/records/accounts/refresh-tokens.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { body, JSON_HEADERS, problem, useApp, useDatabase } from './helpers/app.js';
import { useMailApp, verifyingShop } from './helpers/mail-app.js';
import { mailbox } from './helpers/mailbox.js';
import { startServer } from './helpers/server.js';
import { openShop, PASSWORDS, type Shop, shopSettings, signIn } from './helpers/shop-accounts.js';
import { recipientOf, startSmtp, tokenOf } from './helpers/smtp.js';
import { STORE_KINDS } from './helpers/stores.js';

const ROOT = new URL('..', import.meta.url).pathname;

for (const kind of STORE_KINDS) {
  describe(`password reset (${kind.name})`, () => {
    const ctx = useMailApp(kind, shopSettings({ signInMaxFailures: 1000 }));
    let store: Store;
    let shop: Shop;
    let app: FastifyInstance;
    before(async () => {
      app = ctx.app;
      shop = await openShop(app);
      store = await openStore(ctx.db.url, loadCatalog(defaultConfig({ schemas: join(ROOT, 'schemas/shop') })));
    });
    after(async () => {
      await store?.close();
    });
    const box = () => mailbox(ctx.smtp);
    const post = (url: string, payload: object) => app.inject({ method: 'POST', url, headers: JSON_HEADERS, payload });
    const ask = (email: string) => post('/users/auth/reset/', { email });
    const confirm = (token: string, password: string, extra: object = {}) =>
      post('/users/auth/reset/confirm/', { token, password, ...extra });

    it('answers 202 alike whatever the address, and mails only the account that has it', async () => {
      const mails = box();
      const answers = [await ask('nobody@example.com'), await ask('ADA@example.com'), await ask('nobody2@example.com')];
      const shape = (answer: (typeof answers)[number]) => {
        // The request budget's count goes down by one at each request, whatever the address.
        const { date: _d, 'x-request-id': _r, 'ratelimit-remaining': _left, ...headers } = answer.headers;
        return { status: answer.statusCode, body: answer.body, headers };
      };
      assert.equal(answers[0]?.statusCode, 202);
      assert.deepEqual(shape(answers[1] as (typeof answers)[number]), shape(answers[0] as (typeof answers)[number]));
      assert.deepEqual(shape(answers[2] as (typeof answers)[number]), shape(answers[0] as (typeof answers)[number]));
      const mail = await mails.take(() => true);
      assert.equal(recipientOf(mail), 'ada@example.com', "to the account's own address");
      assert.match(mail.text ?? '', /action=reset&collection=users&token=/);
      // Every mail queued so far has been sent or dropped: the outbox is empty.
      while ((await store.mail.pending()) > 0) await setTimeout(10);
      assert.deepEqual(mails.left(), [], 'no mail for an address no account has');
    });

    it('sets the password with the token once, and signs every session out', async () => {
      const mails = box();
      const before = await signIn(app, 'bob@example.com', PASSWORDS.bob);
      assert.equal((await ask('bob@example.com')).statusCode, 202);
      const token = tokenOf(await mails.take((mail) => recipientOf(mail) === 'bob@example.com'));
      const done = await confirm(token, 'bob after the reset');
      assert.equal(done.statusCode, 204, done.body);
      const refreshed = await post('/users/auth/refresh/', { refreshToken: before.refreshToken });
      problem(refreshed, 401, 'invalid-credentials');
      problem(await post('/users/auth/refresh/', { refreshToken: shop.people.bob.refreshToken }), 401);
      problem(await post('/users/auth/', { email: 'bob@example.com', password: PASSWORDS.bob }), 401);
      shop.people.bob = await signIn(app, 'bob@example.com', 'bob after the reset');
      problem(await confirm(token, 'bob once more'), 400, 'invalid-token');
    });

    it('signs in when the app asks, and proves the address', async () => {
      const mails = box();
      await ask('sam@example.com');
      const token = tokenOf(await mails.take((mail) => recipientOf(mail) === 'sam@example.com'));
      const signed = await confirm(token, 'sam after the reset', { signIn: true });
      assert.equal(signed.statusCode, 200, signed.body);
      const answer = body(signed) as { token: string; record: { id: number } };
      assert.equal(answer.record.id, shop.people.sam.id);
      assert.equal(await store.accounts.isVerified('users', shop.people.sam.id), true);
      const me = await app.inject({
        method: 'GET',
        url: '/users/auth/',
        headers: { authorization: `Bearer ${answer.token}` },
      });
      assert.equal(body(me).email, 'sam@example.com');
    });

    it('refuses a used, expired, superseded, foreign or made-up token with one 400', async () => {
      const mails = box();
      await ask('ada@example.com');
      const first = tokenOf(await mails.take((mail) => recipientOf(mail) === 'ada@example.com'));
      await ask('ada@example.com');
      const second = tokenOf(await mails.take((mail) => recipientOf(mail) === 'ada@example.com'));
      const made = (purpose: 'reset' | 'email', collection: string, expiresAt: number) => {
        const token = `${purpose}-${collection}-${expiresAt}`.padEnd(43, 'x').slice(0, 43);
        return store.accounts
          .addFlowToken({
            hash: refreshTokenHash(token),
            purpose,
            collection,
            accountId: shop.people.bob.id,
            detail: purpose === 'email' ? 'bob2@example.com' : null,
            expiresAt,
          })
          .then(() => token);
      };
      const expired = await made('reset', 'users', Date.now() - 1);
      const ofEmail = await made('email', 'users', Date.now() + 60_000);
      const ofOrders = await made('reset', 'orders', Date.now() + 60_000);
      const refusals = [
        await confirm(first, 'a password of ada'),
        await confirm(expired, 'a password of bob'),
        await confirm(ofEmail, 'a password of bob'),
        await confirm(ofOrders, 'a password of bob'),
        await confirm('A'.repeat(43), 'a password of bob'),
        await confirm('short', 'a password of bob'),
      ].map((answer) => problem(answer, 400, 'invalid-token'));
      assert.equal(new Set(refusals.map((refusal) => refusal.detail)).size, 1);
      problem(await confirm(second, 'short'), 422, 'schema-violation');
      assert.equal((await confirm(second, 'ada after the reset')).statusCode, 204);
      problem(await confirm(second, 'ada after the reset'), 400, 'invalid-token');
      await signIn(app, 'bob@example.com', 'bob after the reset');
    });

    it('checks the shape of the bodies', async () => {
      problem(await post('/users/auth/reset/', { email: 42 }), 400, 'invalid-record');
      problem(await post('/users/auth/reset/', { email: 'a@example.com', role: 'staff' }), 400, 'invalid-record');
      problem(await post('/users/auth/reset/confirm/', { token: 'x' }), 400, 'invalid-record');
    });
  });

  describe(`password reset requests, limited (${kind.name})`, () => {
    const ctx = useApp(kind, shopSettings({ mailLogLinks: true, signInMaxFailures: 3 }));

    it('counts requests per address asked for and per client: 429 with Retry-After past the limit', async () => {
      const ask = (email: string) =>
        ctx.app.inject({ method: 'POST', url: '/users/auth/reset/', headers: JSON_HEADERS, payload: { email } });
      for (let i = 0; i < 3; i++) assert.equal((await ask('someone@example.com')).statusCode, 202);
      const refused = problem(await ask('Someone@example.com'), 429, 'too-many-requests');
      assert.match(refused.detail, /Too many password resets/);
      assert.ok(Number((await ask('other@example.com')).headers['retry-after']) > 0, 'the client is counted too');
    });
  });

  describe(`password reset without mail (${kind.name})`, () => {
    const ctx = useApp(kind, shopSettings());

    it('answers 503 and queues nothing', async () => {
      const asked = await ctx.app.inject({
        method: 'POST',
        url: '/users/auth/reset/',
        headers: JSON_HEADERS,
        payload: { email: 'ada@example.com' },
      });
      problem(asked, 503, 'mail-unavailable');
    });
  });
}

describe('password reset and email change in the logs', () => {
  const context = useDatabase(STORE_KINDS[0] as (typeof STORE_KINDS)[number]);
  const schemas = verifyingShop();

  it('never hold a token, a code or a link, at LOG_LEVEL=trace', async () => {
    const smtp = await startSmtp();
    const mails = mailbox(smtp);
    const server = await startServer({
      DATABASE_URL: context.db.url,
      SCHEMAS: schemas,
      LOG_LEVEL: 'trace',
      PASSWORD_HASH_COST: '10,8,1',
      SMTP_URL: smtp.url,
    });
    const secrets: string[] = [];
    try {
      const post = (path: string, payload: unknown, headers: Record<string, string> = {}) =>
        fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(payload),
        });
      const made = await post('/user/', { name: 'Ada', email: 'ada@example.com', password: PASSWORDS.ada });
      assert.equal(made.status, 201);
      const id = ((await made.json()) as { id: number }).id;
      assert.equal((await post('/users/auth/reset/', { email: 'ada@example.com' })).status, 202);
      const reset = await mails.take((mail) => /action=reset/.test(mail.text ?? ''));
      secrets.push(tokenOf(reset), /(\S*action=reset\S*)/.exec(reset.text ?? '')?.[1] ?? 'no link');
      const set = await post('/users/auth/reset/confirm/', { token: tokenOf(reset), password: 'a reset password' });
      assert.equal(set.status, 204);
      const signed = (await (
        await post('/users/auth/', { email: 'ada@example.com', password: 'a reset password' })
      ).json()) as { token: string };
      const changed = await post(
        `/user/${id}/`,
        { email: 'ada.new@example.com' },
        { authorization: `Bearer ${signed.token}`, 'HTTP-X-HTTP-METHOD': 'PATCH' },
      );
      assert.equal(changed.status, 200, await changed.clone().text());
      const confirmation = await mails.take((mail) => recipientOf(mail) === 'ada.new@example.com');
      secrets.push(tokenOf(confirmation), /(\S*action=email\S*)/.exec(confirmation.text ?? '')?.[1] ?? 'no link');
      assert.equal((await post('/users/auth/email/confirm/', { token: tokenOf(confirmation) })).status, 200);
    } finally {
      assert.equal(await server.stop(), 0);
      await smtp.close();
    }
    const log = server.output.join('\n');
    assert.ok(log.includes('/users/auth/reset/confirm/'), 'the requests were logged');
    for (const secret of secrets) assert.ok(!log.includes(secret), 'a token or link was logged');
    assert.doesNotMatch(log, /token=/);
  });
});

describe('mail asked for by address', () => {
  it('is due at a moment spread over two seconds, never at once for all', () => {
    const now = 1_800_000_000_000;
    const dues = Array.from({ length: 1000 }, () => addressMailDue(now) - now);
    assert.ok(dues.every((due) => Number.isInteger(due) && due >= 0 && due < ADDRESS_MAIL_SPREAD_MS));
    // 1,000 draws of 2,000 values: fewer than 500 distinct ones would be a spread that does not spread.
    assert.ok(new Set(dues).size > 500, `${new Set(dues).size} distinct moments`);
    assert.ok(Math.max(...dues) - Math.min(...dues) > ADDRESS_MAIL_SPREAD_MS / 2);
  });
});
