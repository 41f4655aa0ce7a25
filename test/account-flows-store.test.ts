/**
 * The store's part of accounts' flows, on both stores: single-use tokens kept by hash (a
 * newer one supersedes, expired and spent ones are gone), verified accounts, providers'
 * links, and the mail outbox, written with an account's own writes or not at all and
 * claimed by one sender at a time. Times are the caller's clock, passed in.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { openStore } from '../src/store/open-store.js';
import { InvalidFlowTokenError, type Store } from '../src/store/store.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const ROOT = new URL('..', import.meta.url).pathname;
const NOW = 1_800_000_000_000;
const token = (hash: string, accountId: number | null, purpose: 'reset' | 'email' = 'reset') => ({
  hash,
  purpose,
  collection: 'users',
  accountId,
  detail: purpose === 'email' ? 'new@example.com' : null,
  expiresAt: NOW + 60_000,
});

for (const kind of STORE_KINDS) {
  describe(`account flows in the store (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    const user = async (email: string) =>
      store.collection('users').create(JSON.stringify({ name: email, email }), undefined, {
        mail: [{ kind: 'verify', collection: 'users' }],
      });
    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, loadCatalog(defaultConfig({ schemas: join(ROOT, 'schemas/shop') })));
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('keeps a token by hash until it is spent or expires; a newer one of its purpose supersedes it', async () => {
      const { id } = await user('ada@example.com');
      await store.accounts.addFlowToken(token('h1', id));
      assert.equal((await store.accounts.findFlowToken('reset', 'users', 'h1', NOW))?.accountId, id);
      assert.equal(await store.accounts.findFlowToken('reset', 'users', 'h1', NOW + 60_000), undefined, 'expired');
      assert.equal(await store.accounts.findFlowToken('email', 'users', 'h1', NOW), undefined, 'another purpose');
      await store.accounts.addFlowToken(token('h2', id));
      assert.equal(await store.accounts.findFlowToken('reset', 'users', 'h1', NOW), undefined, 'superseded');
      assert.equal((await store.accounts.spendFlowToken('reset', 'users', 'h2', NOW))?.accountId, id);
      assert.equal(await store.accounts.spendFlowToken('reset', 'users', 'h2', NOW), undefined, 'spent once');
    });

    it('spends a token in the write it allows, and refuses the write for a token not its own', async () => {
      const [ada, bob] = [await user('ada2@example.com'), await user('bob2@example.com')];
      await store.accounts.addFlowToken(token('e1', ada.id, 'email'));
      const spend = { purpose: 'email' as const, hash: 'e1', now: NOW };
      await assert.rejects(
        store.collection('users').merge(bob.id, { email: 'new@example.com' }, { spend }),
        InvalidFlowTokenError,
      );
      assert.equal((await store.collection('users').get(bob.id))?.data.includes('bob2@'), true, 'nothing changed');
      const changed = await store
        .collection('users')
        .merge(ada.id, { email: 'new@example.com' }, { spend, verified: true });
      assert.match(changed?.data ?? '', /new@example\.com/);
      assert.equal(await store.accounts.isVerified('users', ada.id), true);
      await assert.rejects(store.collection('users').merge(ada.id, {}, { spend }), InvalidFlowTokenError);
    });

    it('keeps verified states and links, and forgets them with the account', async () => {
      const { id } = await user('cy@example.com');
      assert.equal(await store.accounts.isVerified('users', id), false);
      await store.accounts.setVerified('users', id, true);
      await store.accounts.addLink({ collection: 'users', provider: 'acme', subject: 's-1', accountId: id });
      await store.accounts.addLink({ collection: 'users', provider: 'acme', subject: 's-1', accountId: id + 1 });
      assert.equal(await store.accounts.findLink('users', 'acme', 's-1'), id, 'a subject keeps its first account');
      await store.collection('users').remove(id);
      assert.equal(await store.accounts.isVerified('users', id), false);
      assert.equal(await store.accounts.findLink('users', 'acme', 's-1'), undefined);
    });

    it('queues mail with the write that causes it, and hands each due mail to one sender at a time', async () => {
      const sent = await store.mail.claim(Date.now() + 1000, 30_000, 1000);
      assert.ok(sent.length >= 4, 'every sign-up above queued its verification');
      assert.ok(sent.every((mail) => mail.kind === 'verify' && mail.accountId !== null && mail.attempts === 1));
      assert.deepEqual(await store.mail.claim(Date.now() + 1000, 30_000, 1000), [], 'leased');
      const [first, ...rest] = sent;
      for (const mail of rest) await store.mail.finish(mail.id);
      await store.mail.retry(first?.id ?? '', 0);
      const again = await store.mail.claim(Date.now(), 30_000, 10);
      assert.deepEqual(
        again.map((mail) => [mail.id, mail.attempts]),
        [[first?.id, 2]],
      );
      await store.mail.enqueue({ kind: 'reset-request', collection: 'users', address: 'who@example.com' }, 0);
      assert.equal(await store.mail.pending(), 2);
      await assert.rejects(
        store
          .collection('users')
          .create(JSON.stringify({ name: 'x', email: 'ADA@example.com' }), undefined, {
            mail: [{ kind: 'verify', collection: 'users' }],
          }),
      );
      assert.equal(await store.mail.pending(), 2, 'a create that failed (a taken address) queued nothing');
    });
  });
}
