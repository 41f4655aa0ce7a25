/**
 * Mail under kill -9, on both stores: a sign-up commits (its verification mail in the
 * outbox with it), the server claims the mail and starts sending it, and is killed while a
 * real SMTP server holds back its answer to DATA, so that nothing was accepted. Started
 * again on the same database, the server sends the mail once its lease has ended: exactly
 * one mail arrives, and its link verifies the account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { openStore } from '../src/store/open-store.js';
import { startServer } from './helpers/server.js';
import { recipientOf, startSmtp, type TestSmtp, tokenOf } from './helpers/smtp.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import { call, signUp, VERIFY_SHOP_ENV, verifyShopSchemas } from './helpers/verify-shop.js';

for (const kind of STORE_KINDS) {
  describe(`mail under kill -9 (${kind.name})`, () => {
    let db: TestDatabase;
    let smtp: TestSmtp;
    before(async () => {
      db = await kind.create();
      smtp = await startSmtp();
    });
    after(async () => {
      await smtp.close();
      await db.drop();
    });

    it('sends a mail whose sending was cut short by the kill after the restart, once', async () => {
      const schemas = verifyShopSchemas();
      const env = {
        ...VERIFY_SHOP_ENV,
        DATABASE_URL: db.url,
        SCHEMAS: schemas,
        SMTP_URL: smtp.url,
        // A short lease, so that the restarted server may take the mail soon; polls often to see it end.
        MAIL_LEASE_SECONDS: '3',
        MAIL_POLL_SECONDS: '0.2',
      };
      smtp.hold();
      const first = await startServer(env);
      const signedUp = await signUp(first.url, 'ada@example.com');
      assert.equal(signedUp.status, 201, JSON.stringify(signedUp.body));
      await smtp.held();
      assert.equal(await first.stop('SIGKILL'), null);
      await smtp.abandon();
      assert.equal(smtp.mails.length, 0, 'nothing was accepted before the kill');

      const second = await startServer(env);
      try {
        const mail = await smtp.nextMail();
        assert.equal(recipientOf(mail), 'ada@example.com');
        const verified = await call(second.url, 'POST', '/users/auth/verify/', { token: tokenOf(mail) });
        assert.equal(verified.status, 200, JSON.stringify(verified.body));
      } finally {
        // A graceful stop lets the sender finish what it holds: what is left in the outbox is all there is.
        await second.stop();
      }
      const store = await openStore(db.url, loadCatalog(defaultConfig({ schemas })));
      try {
        assert.equal(await store.mail.pending(), 0, 'the outbox is empty');
      } finally {
        await store.close();
      }
      assert.equal(smtp.mails.length, 1, 'exactly one mail arrived');
    });
  });
}
