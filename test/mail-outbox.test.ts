/**
 * The mail outbox's drain against a real SMTP server (./helpers/smtp.ts), on both stores:
 * a mail queued with its write is sent once, its link carrying a token the store keeps only
 * as a hash; a server that refuses for a while gets the mail once it accepts; a mail that
 * never goes is given up with a log line that holds neither its token nor its link. Without
 * SMTP_URL a sign-up that needs mail is one 503 and writes nothing, unless MAIL_LOG_LINKS
 * (development) logs the link in place of sending it.
 */
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { defaultConfig } from '../src/config/index.js';
import type { Catalog } from '../src/core/catalog.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { flowTokenHash, mailComposers } from '../src/records/accounts/index.js';
import { MailDrain, type MailDrainOptions, type MailLog, mailSender } from '../src/records/mail/index.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { API_KEYS, WRITE_KEY } from './helpers/keys.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { recipientOf, startSmtp, type TestSmtp, tokenOf } from './helpers/smtp.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import { call, signUp as signUpOver, VERIFY_SHOP_ENV, verifyShopSchemas } from './helpers/verify-shop.js';

const ROOT = new URL('..', import.meta.url).pathname;
const LINK_BASE = 'https://app.example/welcome?from=mail';

/** A log kept in memory, each line also an event of its message. */
function memoryLog() {
  const lines: string[] = [];
  const events = new EventEmitter();
  const write = (level: string) => (object: object, message: string) => {
    lines.push(JSON.stringify({ level, ...object, message }));
    events.emit(message, object);
  };
  const log: MailLog = { info: write('info'), warn: write('warn'), error: write('error') };
  return { log, lines, next: (message: string) => once(events, message) };
}

/** Text of 43 base64url characters or more: a token (a mail id, a UUID, is 36). */
const TOKEN_LIKE = /[A-Za-z0-9_-]{43}/;

for (const kind of STORE_KINDS) {
  describe(`mail outbox (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    let catalog: Catalog;
    let smtp: TestSmtp;
    let signUps = 0;
    before(async () => {
      db = await kind.create();
      catalog = loadCatalog(defaultConfig({ schemas: join(ROOT, 'schemas/shop') }));
      store = await openStore(db.url, catalog);
      smtp = await startSmtp();
    });
    after(async () => {
      await smtp.close();
      await store.close();
      await db.drop();
    });

    /** A user signed up with its verification mail queued in the same transaction. */
    const signUp = async () => {
      const email = `user-${++signUps}@example.com`;
      const record = await store
        .collection('users')
        .create(JSON.stringify({ name: email, email }), undefined, { mail: [{ kind: 'verify', collection: 'users' }] });
      return { id: record.id, email };
    };
    // A test that fails leaves no drain running: the file would never end.
    const drains: MailDrain[] = [];
    afterEach(async () => {
      await Promise.all(drains.splice(0).map((drain) => drain.stop()));
    });
    const drainWith = (log: MailLog, options: Partial<MailDrainOptions> = {}) => {
      const sender = mailSender(defaultConfig({ smtpUrl: smtp.url }), log, { connections: 2, timeoutMs: 10_000 });
      assert.ok(sender);
      const drain = new MailDrain({
        outbox: store.mail,
        composers: mailComposers({ store, catalog, verifyTokenMs: 3_600_000, resetTokenMs: 1_800_000 }),
        sender,
        accountOf: (plural) => catalog.byPlural(plural)?.account,
        appName: 'Test Shop',
        linkBase: () => LINK_BASE,
        log,
        concurrency: 2,
        leaseMs: 60_000,
        pollMs: 60_000,
        retryMs: 10,
        maxAttempts: 5,
        ...options,
      });
      drains.push(drain);
      return drain;
    };

    it('sends a queued mail once, with a link whose token the store keeps only as a hash', async () => {
      const { log, lines } = memoryLog();
      const drain = drainWith(log);
      drain.start();
      const { id, email } = await signUp();
      drain.wake();
      const mail = await smtp.nextMail();
      await drain.stop();
      assert.equal(recipientOf(mail), email);
      assert.equal(mail.subject, 'Confirm your email address for Test Shop');
      const token = tokenOf(mail);
      assert.ok(mail.text?.includes(`\n${LINK_BASE}&action=verify&collection=users&token=${token}\n`), mail.text);
      assert.ok(
        String(mail.html).includes(`href="${LINK_BASE}&#38;action=verify&#38;collection=users&#38;token=${token}"`),
      );
      const stored = await store.accounts.findFlowToken('verify', 'users', flowTokenHash(token), Date.now());
      assert.equal(stored?.accountId, id);
      assert.equal(await store.mail.pending(), 0, 'sent mail leaves the outbox');
      assert.deepEqual(lines, []);
    });

    it('tries a refused mail again, with backoff, until the server takes it', async () => {
      const { log, lines } = memoryLog();
      const drain = drainWith(log);
      smtp.refuseNext(2);
      const before = smtp.refused;
      const { email } = await signUp();
      drain.start();
      const mail = await smtp.nextMail();
      await drain.stop();
      assert.equal(smtp.refused - before, 2);
      assert.equal(recipientOf(mail), email);
      assert.equal(lines.length, 2, lines.join('\n'));
      for (const line of lines) {
        assert.match(line, /"message":"mail not sent; it will be tried again"/);
        assert.doesNotMatch(line, TOKEN_LIKE);
        assert.doesNotMatch(line, /token=|app\.example/);
      }
      assert.equal(await store.mail.pending(), 0);
    });

    it('gives a mail up after its last try, logging it without its token or link', async () => {
      const { log, lines, next } = memoryLog();
      const drain = drainWith(log, { maxAttempts: 3 });
      smtp.refuseNext(3);
      const received = smtp.mails.length;
      await signUp();
      drain.start();
      await next('mail given up after its last try');
      await drain.stop();
      assert.equal(smtp.mails.length, received, 'nothing was accepted');
      assert.equal(await store.mail.pending(), 0, 'a mail given up leaves the outbox');
      assert.equal(lines.length, 3);
      for (const line of lines) {
        assert.doesNotMatch(line, TOKEN_LIKE);
        assert.doesNotMatch(line, /token=|app\.example/);
      }
    });

    it("words a mail with the collection's own template (x-auth.mail), escaping the values in its HTML", async () => {
      const templates = {
        verify: { subject: '{{appName}}: one step left', html: '<b>{{appName}}</b> <a href="{{link}}">go</a>' },
      };
      const own = loadCatalog(defaultConfig({ schemas: verifyShopSchemas(templates) }));
      assert.deepEqual(own.byPlural('users')?.account?.mail, templates);
      const { log } = memoryLog();
      const drain = drainWith(log, { appName: 'A & <B>', accountOf: (plural) => own.byPlural(plural)?.account });
      drain.start();
      await signUp();
      drain.wake();
      const mail = await smtp.nextMail();
      await drain.stop();
      assert.equal(mail.subject, 'A & <B>: one step left');
      assert.match(
        String(mail.html),
        /^<b>A &#38; &#60;B&#62;<\/b> <a href="https:\/\/app\.example\/welcome\?from=mail&#38;action=verify/,
      );
      assert.match(mail.text ?? '', /Welcome to A & <B>\./, 'the text is restock’s own, not escaped');
    });

    it('refuses a schema whose x-auth.mail names no template or a part no mail has', () => {
      for (const mail of [{ welcome: { subject: 'Hi' } }, { verify: { body: 'Hi' } }, { verify: { subject: '' } }]) {
        assert.throws(() => loadCatalog(defaultConfig({ schemas: verifyShopSchemas(mail) })), /x-auth/);
      }
    });
  });
}

/** Resolves with the first line of the server's output matching `pattern`, now or once it is printed. */
async function lineMatching(server: RunningServer, pattern: RegExp): Promise<string> {
  const stdout = server.process.stdout;
  for (;;) {
    const found = server.output.find((line) => pattern.test(line));
    if (found) return found;
    if (!stdout || server.process.exitCode !== null) throw new Error(`the server ended without printing ${pattern}`);
    // startServer's own listener, registered first, has taken the chunk's lines by now.
    await Promise.race([once(stdout, 'data'), once(server.process, 'exit')]);
  }
}

for (const kind of STORE_KINDS) {
  describe(`mail unavailable (${kind.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await kind.create();
    });
    after(() => db.drop());

    it('refuses a sign-up that needs mail with one 503, writing nothing; MAIL_LOG_LINKS logs the link instead', async () => {
      const env = { ...VERIFY_SHOP_ENV, DATABASE_URL: db.url, SCHEMAS: verifyShopSchemas(), API_KEYS };
      const server = await startServer(env);
      try {
        const alone = await signUpOver(server.url, 'ada@example.com');
        const bulk = await call(server.url, 'POST', '/users/', [{ name: 'B', email: 'b@example.com' }], WRITE_KEY);
        const batch = await call(server.url, 'POST', '/batch/', [
          { method: 'POST', path: '/users/', body: { name: 'C', email: 'c@example.com' } },
        ]);
        for (const answer of [alone, bulk, batch]) {
          assert.equal(answer.status, 503, JSON.stringify(answer.body));
          assert.equal(answer.body.type, '/problems/mail-unavailable');
        }
        // A body that could never be written is told so first: the 503 is for one that could.
        const unfit = await call(server.url, 'POST', '/users/', { name: 'D', email: 7 }, WRITE_KEY);
        assert.equal(unfit.status, 422, JSON.stringify(unfit.body));
        const listed = await call(server.url, 'GET', '/users/', undefined, WRITE_KEY);
        assert.equal(listed.status, 200);
        assert.deepEqual(listed.body, [], 'nothing was written');
        // A collection that sends no mail is not held to it.
        assert.equal((await call(server.url, 'POST', '/posts/', { title: 'hi' }, WRITE_KEY)).status, 201);
      } finally {
        await server.stop();
      }

      const developing = await startServer({ ...env, MAIL_LOG_LINKS: 'true', APP_URL: 'http://localhost:5173/' });
      try {
        assert.equal((await signUpOver(developing.url, 'ada@example.com')).status, 201);
        const line = await lineMatching(developing, /MAIL_LOG_LINKS/);
        const logged = JSON.parse(line) as { level: number; link: string; mail: { to: string } };
        assert.equal(logged.level, 30, 'at info');
        assert.equal(logged.mail.to, 'ada@example.com');
        const link = new URL(logged.link);
        assert.equal(`${link.origin}${link.pathname}`, 'http://localhost:5173/');
        assert.equal(link.searchParams.get('action'), 'verify');
        const verified = await call(developing.url, 'POST', '/users/auth/verify/', {
          token: link.searchParams.get('token'),
        });
        assert.equal(verified.status, 200, JSON.stringify(verified.body));
      } finally {
        await developing.stop();
      }
    });
  });
}
