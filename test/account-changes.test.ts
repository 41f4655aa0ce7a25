/**
 * An account's own changes, over the real app on every store, with the example shop: who am
 * I (`GET /users/auth/`); a new password only with the current one for a caller without a
 * key (alone and in a batch), one 400 whether it was missing or wrong, the current one never
 * stored nor answered; a write key changes it alone. With users that verify their email and
 * a real SMTP server (./helpers/smtp.ts): a new address applies only once confirmed through
 * the link mailed to it, the old address told; without mail, 503.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { hashPassword } from '../src/records/accounts/index.js';
import { openStore } from '../src/store/open-store.js';
import { body, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { authorization } from './helpers/keys.js';
import { useMailApp, verifyingShop } from './helpers/mail-app.js';
import { type Mailbox, mailbox } from './helpers/mailbox.js';
import { openShop, PASSWORDS, type Shop, send, shopSettings, signIn } from './helpers/shop-accounts.js';
import { recipientOf, tokenOf } from './helpers/smtp.js';
import { STORE_KINDS } from './helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`who am I, and password changes (${kind.name})`, () => {
    const ctx = useApp(kind, shopSettings());
    let shop: Shop;
    before(async () => {
      shop = await openShop(ctx.app);
    });
    const me = (headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: '/users/auth/', headers });
    const change = (id: number, token: string, payload: object, method: 'PUT' | 'PATCH' = 'PATCH') =>
      ctx.app.inject({
        method,
        url: `/user/${id}/`,
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        payload,
      });

    it("answers the caller's own record: 401 without a token or with a bad one, 403 with a key", async () => {
      const ada = await me({ authorization: `Bearer ${shop.people.ada.token}` });
      assert.equal(ada.statusCode, 200, ada.body);
      assert.equal(ada.headers['cache-control'], 'no-store');
      assert.equal(typeof ada.headers.etag, 'string');
      const record = body(ada);
      assert.deepEqual([record.id, record.email, record.password], [shop.people.ada.id, 'ada@example.com', undefined]);
      assert.equal(body(await me({ authorization: `Bearer ${shop.people.sam.token}` })).email, 'sam@example.com');
      const none = problem(await me({}), 401, 'unauthorized');
      assert.match(none.detail, /access token/);
      problem(await me({ authorization: 'Bearer not.a.token' }), 401);
      problem(await me(authorization('write')), 403, 'forbidden');
      problem(await me(authorization('read')), 403, 'forbidden');
    });

    it('needs the current password for a token to change a password: one 400, missing or wrong', async () => {
      const { id, token } = shop.people.bob;
      const answers = [
        await change(id, token, { password: 'a new password 1' }),
        await change(id, token, { password: 'a new password 1', currentPassword: 'not it at all' }),
        await change(id, token, { password: 'a new password 1', currentPassword: 42 }),
        // Another account's id, or none: the same answer, which says nothing of the account.
        await change(9_999_999, token, { password: 'a new password 1', currentPassword: PASSWORDS.bob }),
      ];
      const problems = answers.map((answer) => problem(answer, 400, 'invalid-current-password'));
      assert.equal(new Set(problems.map((found) => found.detail)).size, 1);
      assert.deepEqual(problems[0]?.errors, [
        { pointer: '/currentPassword', message: 'is missing or is not the current password' },
      ]);
      await signIn(ctx.app, 'bob@example.com', PASSWORDS.bob);

      const changed = await change(id, token, { password: 'a new password 1', currentPassword: PASSWORDS.bob }, 'PUT');
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(body(changed).currentPassword, undefined, 'never answered');
      assert.equal(body(changed).password, undefined);
      const read = await send(ctx.app, shop, 'write', { method: 'GET', url: `/user/${id}/` });
      assert.deepEqual(Object.keys(body(read)).sort(), ['createdAt', 'email', 'id', 'name', 'updatedAt']);
      const old = await ctx.app.inject({
        method: 'POST',
        url: '/users/auth/',
        headers: JSON_HEADERS,
        payload: { email: 'bob@example.com', password: PASSWORDS.bob },
      });
      problem(old, 401, 'invalid-credentials');
      shop.people.bob = await signIn(ctx.app, 'bob@example.com', 'a new password 1');
    });

    it("holds staff, whose rule lets them change anyone, to the account's current password too", async () => {
      const { ada, sam } = shop.people;
      problem(await change(ada.id, sam.token, { password: 'staff chose this' }), 400, 'invalid-current-password');
      const named = await change(ada.id, sam.token, { name: 'Ada L.' });
      assert.equal(named.statusCode, 200, 'other changes need no password');
    });

    it('lets a write key change a password without the current one; a stray currentPassword is never stored', async () => {
      const { id } = shop.people.ada;
      const changed = await send(ctx.app, shop, 'write', {
        method: 'PATCH',
        url: `/user/${id}/`,
        payload: { password: 'set by the service', currentPassword: 'ignored' },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(body(changed).currentPassword, undefined);
      shop.people.ada = await signIn(ctx.app, 'ada@example.com', 'set by the service');
      const named = await change(id, shop.people.ada.token, { name: 'Ada', currentPassword: 'set by the service' });
      assert.equal(named.statusCode, 200, named.body);
      assert.equal(body(named).currentPassword, undefined, 'without a new password it is dropped');
    });

    it('holds a batch to the same: the current password checked before it runs', async () => {
      const { id, token } = shop.people.ada;
      const batch = (operations: object[]) =>
        ctx.app.inject({
          method: 'POST',
          url: '/batch/',
          headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
          payload: operations,
        });
      const without = await batch([{ method: 'PATCH', path: `/user/${id}/`, body: { password: 'batch password' } }]);
      const refused = problem(without, 400, 'invalid-current-password');
      assert.equal(refused.errors?.[0]?.pointer, '/0/body/currentPassword');
      const byReference = await batch([
        { method: 'GET', path: `/user/${id}/` },
        {
          method: 'PATCH',
          path: '/user/$0.id/',
          body: { password: 'batch password', currentPassword: 'set by the service' },
        },
      ]);
      problem(byReference, 422, 'invalid-batch');
      const ok = await batch([
        {
          method: 'PATCH',
          path: `/user/${id}/`,
          body: { password: 'batch password', currentPassword: 'set by the service' },
        },
      ]);
      assert.equal(ok.statusCode, 200, ok.body);
      await signIn(ctx.app, 'ada@example.com', 'batch password');
    });
  });

  describe(`email changes (${kind.name})`, () => {
    const ctx = useMailApp(kind, shopSettings({ schemas: verifyingShop() }));
    let shop: Shop;
    let mails: Mailbox;
    before(async () => {
      mails = mailbox(ctx.smtp);
      shop = await openShop(ctx.app);
    });
    const asAda = (method: 'GET' | 'PATCH', url: string, payload?: object) =>
      ctx.app.inject({
        method,
        url,
        headers: { ...JSON_HEADERS, authorization: `Bearer ${shop.people.ada.token}` },
        ...(payload && { payload }),
      });
    const confirm = (token: string) =>
      ctx.app.inject({ method: 'POST', url: '/users/auth/email/confirm/', headers: JSON_HEADERS, payload: { token } });

    it('keeps the old address until the new one is confirmed, and tells the old one', async () => {
      const { id } = shop.people.ada;
      const changed = await asAda('PATCH', `/user/${id}/`, { email: 'ada.new@example.com', name: 'Ada L.' });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual([body(changed).email, body(changed).name], ['ada@example.com', 'Ada L.'], 'the rest applies');
      const toNew = await mails.take((mail) => recipientOf(mail) === 'ada.new@example.com');
      const toOld = await mails.take(
        (mail) => recipientOf(mail) === 'ada@example.com' && !/token=/.test(mail.text ?? ''),
      );
      assert.match(toNew.text ?? '', /action=email&collection=users&token=/);
      assert.doesNotMatch(toOld.text ?? '', /token=/, 'the old address gets no link');
      assert.equal(body(await asAda('GET', '/users/auth/')).email, 'ada@example.com');
      await signIn(ctx.app, 'ada@example.com', PASSWORDS.ada);

      const applied = await confirm(tokenOf(toNew));
      assert.equal(applied.statusCode, 200, applied.body);
      assert.equal(body(applied).email, 'ada.new@example.com');
      const signed = await signIn(ctx.app, 'ada.new@example.com', PASSWORDS.ada);
      assert.equal(decodeJwt(signed.token).verified, true, 'the new address is proven');
      problem(await confirm(tokenOf(toNew)), 400, 'invalid-token');
      shop.people.ada = signed;
    });

    it('answers 409 when another account took the address meanwhile; a key changes it at once', async () => {
      const { id } = shop.people.bob;
      const bob = { ...JSON_HEADERS, authorization: `Bearer ${shop.people.bob.token}` };
      const asked = await ctx.app.inject({
        method: 'PATCH',
        url: `/user/${id}/`,
        headers: bob,
        payload: { email: 'wanted@example.com' },
      });
      assert.equal(asked.statusCode, 200, asked.body);
      const token = tokenOf(await mails.take((mail) => recipientOf(mail) === 'wanted@example.com'));
      const taken = await send(ctx.app, shop, 'write', {
        method: 'PATCH',
        url: `/user/${shop.people.sam.id}/`,
        payload: { email: 'wanted@example.com' },
      });
      assert.equal(body(taken).email, 'wanted@example.com', 'a write key changes it at once');
      problem(await confirm(token), 409, 'unique-conflict');
      const same = await ctx.app.inject({
        method: 'PATCH',
        url: `/user/${id}/`,
        headers: bob,
        payload: { email: 'BOB@example.com' },
      });
      assert.equal(body(same).email, 'BOB@example.com', 'the same address in another case applies at once');
    });
  });

  describe(`email changes without mail (${kind.name})`, () => {
    const schemas = verifyingShop();
    const ctx = useApp(kind, shopSettings({ schemas }));
    it('answer 503 and change nothing', async () => {
      // A sign-up needs mail here too: the account is written straight to the store.
      const store = await openStore(ctx.db.url, loadCatalog(defaultConfig({ schemas })));
      const secret = await hashPassword(PASSWORDS.ada, { logN: 10, r: 8, p: 1 });
      const fields = JSON.stringify({ name: 'Ada', email: 'ada@example.com' });
      const { id } = await store.collection('users').create(fields, undefined, { secret });
      await store.close();
      const { token } = await signIn(ctx.app, 'ada@example.com', PASSWORDS.ada);
      const refused = await ctx.app.inject({
        method: 'PATCH',
        url: `/user/${id}/`,
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        payload: { email: 'ada.elsewhere@example.com', name: 'Ada M.' },
      });
      problem(refused, 503, 'mail-unavailable');
      const me = await ctx.app.inject({
        method: 'GET',
        url: '/users/auth/',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.deepEqual([body(me).email, body(me).name], ['ada@example.com', 'Ada']);
    });
  });

  describe(`email changes where accounts do not verify their email (${kind.name})`, () => {
    const ctx = useApp(kind, shopSettings());
    it('apply at once, as any change, and need no mail', async () => {
      const shop = await openShop(ctx.app);
      const { id, token } = shop.people.ada;
      const changed = await ctx.app.inject({
        method: 'PATCH',
        url: `/user/${id}/`,
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        payload: { email: 'ada.elsewhere@example.com', name: 'Ada M.' },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(body(changed).email, 'ada.elsewhere@example.com');
    });
  });
}
