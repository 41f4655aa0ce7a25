/**
 * An account's own changes, over the real app on every store, with the example shop: who am
 * I (`GET /users/auth/`); a new password only with the current one for a caller without a
 * key (alone and in a batch), one 400 whether it was missing or wrong, the current one never
 * stored nor answered; a write key changes it alone.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { body, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { authorization } from './helpers/keys.js';
import { openShop, PASSWORDS, type Shop, send, shopSettings, signIn } from './helpers/shop-accounts.js';
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
}
