/**
 * Password hashing shared fairly, on every store, with the example shop behind a trusted
 * proxy (test/helpers/addresses.ts): one address and its own account hashing in loops
 * (signing in to the account, changing its password) while a user of another address signs
 * in, who must be served every time; sign-ins past the free places wait their turn rather
 * than being refused at once; and every hash, successful ones too, spends a budget per
 * address and per account, which API keys do not have.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { from, newPerson, shopBehindProxy, signInAs, signUp } from './helpers/addresses.js';
import { body, useApp } from './helpers/app.js';
import { authorization } from './helpers/keys.js';
import { STORE_KINDS } from './helpers/stores.js';

const ATTACKER = '203.0.113.66';
const USER = '198.51.100.7';

/** The account changes its password to the same one: two hashes, the current one's check and the new one's. */
function changePassword(app: FastifyInstance, address: string, id: number, token: string, password: string) {
  const payload = { password, currentPassword: password };
  return app.inject({ method: 'PUT', url: `/user/${id}/`, headers: from(address, token), payload });
}

/** Sends `request` again as each answer comes, noting each status, until `stop()`. */
async function loop(stop: () => boolean, request: () => Promise<LightMyRequestResponse>, statuses: number[]) {
  while (!stop()) statuses.push((await request()).statusCode);
}

const tally = (statuses: readonly number[]) =>
  Object.fromEntries(
    [...new Set(statuses)].sort().map((status) => [status, statuses.filter((s) => s === status).length]),
  );

for (const kind of STORE_KINDS) {
  describe(`password hashing shared fairly (${kind.name})`, () => {
    // A hash of some milliseconds, so that the loops keep the places busy; no budget, so
    // that what is measured is the sharing alone.
    const cost = { logN: 12, r: 8, p: 1 };
    const ctx = useApp(kind, shopBehindProxy({ passwordHashCost: cost, passwordHashBudget: 0 }));

    it('signs a user in 10 of 10 times from another address while one address and its account hash in loops', async (t) => {
      const { app } = ctx;
      const mallory = await newPerson(app, ATTACKER, 'Mallory');
      const ada = await newPerson(app, USER, 'Ada');
      let stopped = false;
      const attack: number[] = [];
      const signIns = () => signInAs(app, ATTACKER, mallory.email, mallory.password);
      const changes = () => changePassword(app, ATTACKER, mallory.id, mallory.token, mallory.password);
      const loops = [signIns, signIns, changes, changes].map((request) => loop(() => stopped, request, attack));
      while (attack.length < 8) await setImmediate();
      const before = attack.length;
      const user: number[] = [];
      for (let i = 0; i < 10; i++) user.push((await signInAs(app, USER, ada.email, ada.password)).statusCode);
      const during = attack.slice(before);
      stopped = true;
      await Promise.all(loops);
      t.diagnostic(`user: ${JSON.stringify(tally(user))}; attack meanwhile: ${JSON.stringify(tally(during))}`);
      assert.deepEqual(user, Array(10).fill(200));
      assert.ok(during.includes(200), 'the attacking address is served its share meanwhile');
    });

    it('lets sign-ins past the free places wait their turn rather than refusing them', async () => {
      const { app } = ctx;
      const people = [];
      for (let i = 0; i < 8; i++) {
        const address = `192.0.2.${10 + i}`;
        const made = await signUp(app, address, `Waiter${i}`);
        assert.equal(made.statusCode, 201, made.body);
        people.push({ address, email: `waiter${i}@example.com`, password: `Waiter${i} knows this one` });
      }
      const answers = await Promise.all(people.map((p) => signInAs(app, p.address, p.email, p.password)));
      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        Array(8).fill(200),
      );
    });
  });

  describe(`password hashes budgeted per address and per account (${kind.name})`, () => {
    const ctx = useApp(kind, shopBehindProxy({ passwordHashBudget: 5 }));

    it('counts every hash, successful ones too, then refuses with 429 and Retry-After; another address is served', async () => {
      const { app } = ctx;
      // Five hashes from the attacker's address: a sign-up, two sign-ins, a password change
      // (the current password checked, the new one hashed).
      const mallory = await newPerson(app, ATTACKER, 'Mallory');
      assert.equal((await signInAs(app, ATTACKER, mallory.email, mallory.password)).statusCode, 200);
      const changed = await changePassword(app, ATTACKER, mallory.id, mallory.token, mallory.password);
      assert.equal(changed.statusCode, 200, changed.body);
      const refused = [
        await signInAs(app, ATTACKER, mallory.email, mallory.password),
        await changePassword(app, ATTACKER, mallory.id, mallory.token, mallory.password),
        await signUp(app, ATTACKER, 'Mallory2'),
      ];
      for (const answer of refused) {
        assert.equal(answer.statusCode, 429, answer.body);
        assert.equal(body(answer).type, '/problems/too-many-sign-ins');
        assert.ok(Number(answer.headers['retry-after']) > 0, 'Retry-After');
      }
      const ada = await newPerson(app, USER, 'Ada');
      assert.equal((await signInAs(app, USER, ada.email, ada.password)).statusCode, 200);
    });

    it('counts an account’s hashes from every address, and none of an API key’s', async () => {
      const { app } = ctx;
      const bob = await newPerson(app, '192.0.2.200', 'Bob');
      const answers = [];
      for (let i = 1; i <= 5; i++) {
        answers.push((await signInAs(app, `192.0.2.${200 + i}`, bob.email, bob.password)).statusCode);
      }
      // Bob's first sign-in and four more: his account's fifth hash was the last.
      assert.deepEqual(answers, [200, 200, 200, 200, 429]);
      for (let i = 0; i < 7; i++) {
        const made = await app.inject({
          method: 'POST',
          url: '/user/',
          headers: { ...from(ATTACKER), ...authorization('write') },
          payload: { name: `Made ${i}`, email: `made${i}@example.com`, password: 'a service made me' },
        });
        assert.equal(made.statusCode, 201, made.body);
      }
    });
  });
}
