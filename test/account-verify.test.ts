/**
 * Email verification end to end, on both stores, over real HTTP with a real SMTP server
 * (./helpers/smtp.ts): a sign-up sends one mail whose link verifies the account once; a
 * rule on `auth.verified` refuses the account until then, and until its token is renewed; a
 * resend's link supersedes the earlier one, and resends are limited per account; and the
 * server's log at trace holds none of the tokens, nor any link.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { API_KEYS, WRITE_KEY } from './helpers/keys.js';
import { REDIS_AVAILABLE, REDIS_URL } from './helpers/redis.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { recipientOf, startSmtp, type TestSmtp, tokenOf } from './helpers/smtp.js';
import { STORE_KINDS, sqliteKind, type TestDatabase } from './helpers/stores.js';
import { call, signInAs, signUp, VERIFY_SHOP_ENV, verifyShopSchemas } from './helpers/verify-shop.js';

const APP_URL = 'https://app.example/account';

for (const kind of STORE_KINDS) {
  describe(`email verification (${kind.name})`, () => {
    let db: TestDatabase;
    let smtp: TestSmtp;
    let server: RunningServer;
    /** Every token a mail carried: none may show in the log. */
    const tokens: string[] = [];
    before(async () => {
      db = await kind.create();
      smtp = await startSmtp();
      server = await startServer({
        ...VERIFY_SHOP_ENV,
        DATABASE_URL: db.url,
        SCHEMAS: verifyShopSchemas(),
        SMTP_URL: smtp.url,
        APP_URL,
        API_KEYS,
        LOG_LEVEL: 'trace',
      });
    });
    after(async () => {
      await server.stop();
      await smtp.close();
      await db.drop();
    });
    const nextToken = async (to: string) => {
      const mail = await smtp.nextMail();
      assert.equal(recipientOf(mail), to);
      const token = tokenOf(mail);
      tokens.push(token);
      assert.ok(mail.text?.includes(`${APP_URL}?action=verify&collection=users&token=${token}`), mail.text);
      return token;
    };

    it('verifies a sign-up once with its link; auth.verified gates a rule until the token is renewed', async () => {
      const signedUp = await signUp(server.url, 'ada@example.com');
      assert.equal(signedUp.status, 201, JSON.stringify(signedUp.body));
      const token = await nextToken('ada@example.com');
      const session = await signInAs(server.url, 'ada@example.com');
      assert.equal(decodeJwt(session.token).verified, false);
      const refused = await call(server.url, 'POST', '/posts/', { title: 'first' }, session.token);
      assert.equal(refused.status, 403, JSON.stringify(refused.body));

      const verified = await call(server.url, 'POST', '/users/auth/verify/', { token });
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      assert.equal(verified.body.id, signedUp.body.id);
      assert.equal(verified.body.password, undefined);
      const again = await call(server.url, 'POST', '/users/auth/verify/', { token });
      assert.equal(again.status, 400);
      assert.equal(again.body.type, '/problems/invalid-token');

      const stale = await call(server.url, 'POST', '/posts/', { title: 'first' }, session.token);
      assert.equal(stale.status, 403, 'a token issued before the verification still says false');
      const renewed = await call(server.url, 'POST', '/users/auth/refresh/', { refreshToken: session.refreshToken });
      assert.equal(renewed.status, 200);
      const fresh = renewed.body.token as string;
      assert.equal(decodeJwt(fresh).verified, true);
      const created = await call(server.url, 'POST', '/posts/', { title: 'first' }, fresh);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    });

    it('refuses an unknown, malformed or foreign token with the same 400', async () => {
      const answers = [
        await call(server.url, 'POST', '/users/auth/verify/', { token: 'A'.repeat(43) }),
        await call(server.url, 'POST', '/users/auth/verify/', { token: 'short' }),
        await call(server.url, 'POST', '/users/auth/verify/', {}),
      ];
      for (const answer of answers) {
        assert.equal(answer.status, 400);
        assert.equal(answer.body.type, '/problems/invalid-token');
        assert.equal(answer.body.detail, answers[0]?.body.detail);
      }
    });

    it('resends to a signed-in account: the new link supersedes the old; limited per account', async () => {
      assert.equal((await signUp(server.url, 'bob@example.com')).status, 201);
      const first = await nextToken('bob@example.com');
      const { token: access } = await signInAs(server.url, 'bob@example.com');
      assert.equal((await call(server.url, 'POST', '/users/auth/verify/resend/')).status, 401, 'a token or an email');
      const resent = await call(server.url, 'POST', '/users/auth/verify/resend/', undefined, access);
      assert.equal(resent.status, 202, JSON.stringify(resent.body));
      const second = await nextToken('bob@example.com');
      assert.notEqual(second, first);
      const old = await call(server.url, 'POST', '/users/auth/verify/', { token: first });
      assert.equal(old.status, 400, 'the older link no longer works');
      assert.equal((await call(server.url, 'POST', '/users/auth/verify/', { token: second })).status, 200);

      // Verified: a resend sends nothing, and still counts. The third resend of the window is the last.
      for (let sent = 1; sent < 3; sent++) {
        assert.equal((await call(server.url, 'POST', '/users/auth/verify/resend/', undefined, access)).status, 202);
      }
      const limited = await call(server.url, 'POST', '/users/auth/verify/resend/', undefined, access);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
    });

    it('sends each account of a bulk create and of a batch its mail', async () => {
      const bulk = await call(
        server.url,
        'POST',
        '/users/',
        [
          { name: 'Cy', email: 'cy@example.com' },
          { name: 'Di', email: 'di@example.com' },
        ],
        WRITE_KEY,
      );
      assert.equal(bulk.status, 201, JSON.stringify(bulk.body));
      const batch = await call(server.url, 'POST', '/batch/', [
        {
          method: 'POST',
          path: '/users/',
          body: { name: 'Ed', email: 'ed@example.com', password: 'correct horse battery' },
        },
        { method: 'POST', path: '/users/', body: { name: 'Flo', email: 'flo@example.com' } },
      ]);
      assert.equal(batch.status, 200, JSON.stringify(batch.body));
      const mails = [await smtp.nextMail(), await smtp.nextMail(), await smtp.nextMail(), await smtp.nextMail()];
      tokens.push(...mails.map(tokenOf));
      assert.deepEqual(mails.map(recipientOf).sort(), [
        'cy@example.com',
        'di@example.com',
        'ed@example.com',
        'flo@example.com',
      ]);
    });

    it('documents the verification routes, and the 503 of a sign-up without mail', async () => {
      const { status, body } = await call(server.url, 'GET', '/openapi.json', undefined, WRITE_KEY);
      assert.equal(status, 200);
      const paths = body.paths as Record<string, Record<string, { operationId: string; responses: object }>>;
      assert.equal(paths['/users/auth/verify/']?.post?.operationId, 'verifyUserEmail');
      assert.ok(Object.keys(paths['/users/auth/verify/']?.post?.responses ?? {}).includes('400'));
      assert.equal(paths['/users/auth/verify/resend/']?.post?.operationId, 'resendUserVerification');
      assert.ok(Object.keys(paths['/users/']?.post?.responses ?? {}).includes('503'));
    });

    it('resends by address, answering alike whether an account has it or not', async () => {
      assert.equal((await signUp(server.url, 'gus@example.com')).status, 201);
      const first = await nextToken('gus@example.com');
      const unknown = await call(server.url, 'POST', '/users/auth/verify/resend/', { email: 'nobody@example.com' });
      const known = await call(server.url, 'POST', '/users/auth/verify/resend/', { email: 'GUS@example.com' });
      assert.equal(unknown.status, 202);
      assert.equal(known.status, 202);
      assert.deepEqual(unknown.body, known.body);
      // nobody@'s resend sends nothing: a mail to it would show here, or in the next test's reads.
      const second = await nextToken('gus@example.com');
      assert.notEqual(second, first);
      assert.equal((await call(server.url, 'POST', '/users/auth/verify/', { token: second })).status, 200);
    });

    it('writes no token, code or link in its log at trace', async () => {
      assert.ok(tokens.length >= 3);
      // Every mail the tests caused was sent: the drain logs nothing more about them.
      const log = server.output.join('\n');
      assert.match(log, /"url":"\/users\/auth\/verify\/"/, 'the log holds the requests');
      for (const token of tokens) assert.ok(!log.includes(token), 'a token is in the log');
      assert.ok(!/token=|app\.example/.test(log), 'a link is in the log');
    });
  });
}

describe('resends counted in Redis, across instances', { skip: !REDIS_AVAILABLE && 'Redis is not available' }, () => {
  let db: TestDatabase;
  let smtp: TestSmtp;
  const servers: RunningServer[] = [];
  before(async () => {
    db = await sqliteKind.create();
    smtp = await startSmtp();
    const env = { ...VERIFY_SHOP_ENV, DATABASE_URL: db.url, SCHEMAS: verifyShopSchemas(), SMTP_URL: smtp.url };
    for (let i = 0; i < 2; i++) servers.push(await startServer({ ...env, API_KEYS, REDIS_URL }));
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await smtp.close();
    await db.drop();
  });

  it('limits an address to three resends in all, whichever instance each reaches', async () => {
    // An address of its own for this run: Redis outlives it, and other runs count theirs.
    const email = `resend-${Date.now()}-${process.pid}@example.com`;
    const resend = (at: number) => call(servers[at % 2]?.url ?? '', 'POST', '/users/auth/verify/resend/', { email });
    for (let sent = 0; sent < 3; sent++) assert.equal((await resend(sent)).status, 202);
    const limited = await resend(3);
    assert.equal(limited.status, 429, 'the fourth, on the instance that saw only one before');
  });
});
