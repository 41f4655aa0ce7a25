/**
 * Budgets an address cannot multiply by signing up, on every store, with the example shop
 * behind a trusted proxy (test/helpers/addresses.ts): a request with an account's token
 * spends its account's request budget and its address's, in one process and through a Redis
 * that instances share, while an API key keeps its own; and one address may hold only a
 * share of the process's change feeds, however many accounts it opens, while another
 * address's feeds are served.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { from, newPerson, type Person, shopBehindProxy, signUp, uniqueAddress } from './helpers/addresses.js';
import { body, useApp, useDatabase } from './helpers/app.js';
import { type EventStream, openEventStream } from './helpers/event-stream.js';
import { authorization } from './helpers/keys.js';
import { REDIS_AVAILABLE, REDIS_URL } from './helpers/redis.js';
import { STORE_KINDS } from './helpers/stores.js';

const ATTACKER = '203.0.113.66';
const USER = '198.51.100.7';

const products = (app: FastifyInstance, address: string, token?: string) =>
  app.inject({ url: '/products/', headers: from(address, token) });

for (const kind of STORE_KINDS) {
  describe(`request budgets of accounts (${kind.name})`, () => {
    const ctx = useApp(kind, shopBehindProxy({ rateLimitMax: 8 }));

    it('spend their address’s budget too, so sign-ups cannot multiply it; another address and a key are served', async () => {
      const { app } = ctx;
      // Two requests of the address's eight: the sign-up and the sign-in.
      const mallory = await newPerson(app, ATTACKER, 'Mallory');
      const reads = [];
      for (let i = 0; i < 7; i++) reads.push(await products(app, ATTACKER, mallory.token));
      assert.deepEqual(
        reads.map((read) => read.statusCode),
        [200, 200, 200, 200, 200, 200, 429],
      );
      assert.deepEqual(
        reads.slice(0, 6).map((read) => read.headers['ratelimit-remaining']),
        ['5', '4', '3', '2', '1', '0'],
        'the headers tell the tighter budget: the address’s',
      );
      const limited = reads[6] as (typeof reads)[number];
      assert.equal(body(limited).type, '/problems/too-many-requests');
      assert.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After');
      assert.equal((await signUp(app, ATTACKER, 'Mallory2')).statusCode, 429, 'no new account, no new budget');
      const ada = await newPerson(app, USER, 'Ada');
      assert.equal((await products(app, USER, ada.token)).statusCode, 200);
      const keyed = await app.inject({ url: '/products/', headers: { ...from(ATTACKER), ...authorization('read') } });
      assert.equal(keyed.statusCode, 200, 'an API key keeps a budget of its own');
    });
  });

  describe(`change feeds per address (${kind.name})`, () => {
    // A quarter of six, and no less than a client's two: two feeds an address.
    const ctx = useApp(kind, shopBehindProxy({ eventsMaxFeeds: 6, eventsMaxFeedsPerClient: 2 }));

    it('give one address a share of the feeds however many accounts it opens; another address is served', async () => {
      const { app } = ctx;
      const at = await app.listen({ host: '127.0.0.1', port: 0 });
      const feed = (address: string, person: Person) =>
        openEventStream(`${at}/products/events/`, from(address, person.token));
      const open: EventStream[] = [];
      try {
        const accounts = [];
        for (const name of ['Mal', 'Mel', 'Mil']) accounts.push(await newPerson(app, ATTACKER, name));
        const statuses = [];
        for (const person of accounts) {
          for (let i = 0; i < 2; i++) {
            const stream = await feed(ATTACKER, person);
            open.push(stream);
            statuses.push(stream.status);
          }
        }
        assert.deepEqual(statuses, [200, 200, 429, 429, 429, 429]);
        const refused = await fetch(`${at}/products/events/`, { headers: from(ATTACKER, accounts[2]?.token) });
        assert.equal(refused.status, 429);
        assert.equal(refused.headers.get('retry-after'), '1');
        assert.equal(((await refused.json()) as { type: string }).type, '/problems/too-many-feeds');
        const ada = await newPerson(app, USER, 'Ada');
        for (let i = 0; i < 2; i++) {
          const stream = await feed(USER, ada);
          open.push(stream);
          assert.equal(stream.status, 200, 'another address opens its feeds');
        }
      } finally {
        for (const stream of open) await stream.close();
      }
    });
  });
}

describe('request budgets of accounts shared through Redis', {
  skip: !REDIS_AVAILABLE && 'Redis does not answer',
}, () => {
  const shared = useDatabase(STORE_KINDS[0] as (typeof STORE_KINDS)[number]);

  it('spend the address’s budget every instance counts', async () => {
    const config = defaultConfig({
      maxEventLoopDelay: 0,
      ...shopBehindProxy({ rateLimitMax: 4, redisUrl: REDIS_URL }),
      databaseUrl: shared.db.url,
    });
    const apps = [await buildApp({ config, logStream: false }), await buildApp({ config, logStream: false })];
    const [one, two] = apps as [FastifyInstance, FastifyInstance];
    try {
      // An address of its own: the budgets in Redis are shared with every other run.
      const address = uniqueAddress();
      const mallory = await newPerson(one, address, 'Mallory');
      // The account's reads, on both instances, spend the address's third and fourth requests
      // (whatever they answer: an account number another run used may be spent already).
      await products(two, address, mallory.token);
      await products(one, address, mallory.token);
      const anonymous = await products(two, address);
      assert.equal(anonymous.statusCode, 429, anonymous.body);
    } finally {
      for (const app of apps) await app.close();
    }
  });
});
