/**
 * Accounts over real HTTP, on every store, with the example shop: signing up and in, tokens
 * and their refresh, reuse and sign-out; one answer for every wrong credential; failed
 * sign-ins limited; the password in no response, feed event or document; and several
 * instances on one PostgreSQL that accept each other's tokens, across a key rotation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { body, JSON_HEADERS, useApp, useDatabase } from './helpers/app.js';
import { openEventStream } from './helpers/event-stream.js';
import { REDIS_AVAILABLE, REDIS_URL } from './helpers/redis.js';
import { runCommand, startServer } from './helpers/server.js';
import { openShop, PASSWORDS, type Shop, send, shopSettings, signIn } from './helpers/shop-accounts.js';
import { POSTGRES_AVAILABLE, postgresKind, STORE_KINDS } from './helpers/stores.js';
import * as jwt from './helpers/tokens.js';

const auth = (app: Parameters<typeof send>[0], url: string, payload: unknown, method = 'POST') =>
  app.inject({ method: method as 'POST', url, headers: JSON_HEADERS, payload: payload as object });

for (const kind of STORE_KINDS) {
  describe(`accounts (${kind.name})`, () => {
    const ctx = useApp(kind, shopSettings());
    let shop: Shop;
    before(async () => {
      shop = await openShop(ctx.app);
    });

    it('signs in with the email (in any case) and the password: a token, a refresh token and the account', async () => {
      const signed = await auth(ctx.app, '/users/auth/', { email: 'SAM@example.com', password: PASSWORDS.sam });
      assert.equal(signed.statusCode, 200, signed.body);
      assert.equal(signed.headers['cache-control'], 'no-store');
      const { token, refreshToken, expiresIn, record } = body(signed) as Record<string, unknown>;
      assert.equal(expiresIn, 15 * 60);
      assert.equal(typeof refreshToken, 'string');
      assert.deepEqual(Object.keys(record as object).sort(), ['createdAt', 'email', 'id', 'name', 'role', 'updatedAt']);
      const claims = decodeJwt(token as string);
      assert.equal(claims.sub, String(shop.people.sam.id));
      assert.equal(claims.collection, 'users');
      assert.equal(claims.role, 'staff');
      assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 15 * 60);
      assert.equal(decodeProtectedHeader(token as string).alg, 'ES256');
    });

    it('gives one 401 for a wrong password, an unknown email and an account without a password', async () => {
      const made = await send(ctx.app, shop, 'write', {
        method: 'POST',
        url: '/user/',
        payload: { name: 'No Password', email: 'nopass@example.com' },
      });
      assert.equal(made.statusCode, 201);
      const answers = [
        await auth(ctx.app, '/users/auth/', { email: 'ada@example.com', password: 'not her password' }),
        await auth(ctx.app, '/users/auth/', { email: 'nobody@example.com', password: PASSWORDS.ada }),
        await auth(ctx.app, '/users/auth/', { email: 'nopass@example.com', password: PASSWORDS.ada }),
      ];
      const problems = answers.map((answer) => {
        assert.equal(answer.statusCode, 401);
        const { instance: _, ...problem } = body(answer);
        return problem;
      });
      assert.deepEqual(problems[1], problems[0]);
      assert.deepEqual(problems[2], problems[0]);
      assert.equal(problems[0]?.type, '/problems/invalid-credentials');
    });

    it('refuses a sign-in that does not name one unique field and a password', async () => {
      for (const payload of [
        { email: 'ada@example.com' },
        { password: PASSWORDS.ada },
        { name: 'Ada', password: PASSWORDS.ada },
        { email: 'ada@example.com', password: PASSWORDS.ada, role: 'staff' },
        { email: 7, password: PASSWORDS.ada },
      ]) {
        const answer = await auth(ctx.app, '/users/auth/', payload);
        assert.equal(answer.statusCode, 400, JSON.stringify(payload));
      }
    });

    it('rotates the refresh token, and revokes its whole family when one is used twice', async () => {
      const first = await signIn(ctx.app, 'bob@example.com', PASSWORDS.bob);
      const renewed = await auth(ctx.app, '/users/auth/refresh/', { refreshToken: first.refreshToken });
      assert.equal(renewed.statusCode, 200, renewed.body);
      const next = body(renewed) as { token: string; refreshToken: string; record: { id: number } };
      assert.notEqual(next.refreshToken, first.refreshToken);
      assert.equal(next.record.id, shop.people.bob.id);
      const reused = await auth(ctx.app, '/users/auth/refresh/', { refreshToken: first.refreshToken });
      assert.equal(reused.statusCode, 401);
      const thief = await auth(ctx.app, '/users/auth/refresh/', { refreshToken: next.refreshToken });
      assert.equal(thief.statusCode, 401, 'the family went with the reused token');
      const read = await ctx.app.inject({ url: '/orders/', headers: { authorization: `Bearer ${next.token}` } });
      assert.equal(read.statusCode, 200, 'an access token stays valid until it expires');
    });

    it('signs out, on the wire and tunnelled through POST: the refresh token stops working', async () => {
      for (const tunnelled of [false, true]) {
        const signed = await signIn(ctx.app, 'ada@example.com', PASSWORDS.ada);
        const out = await ctx.app.inject({
          method: tunnelled ? 'POST' : 'DELETE',
          url: '/users/auth/',
          headers: { ...JSON_HEADERS, ...(tunnelled && { 'HTTP-X-HTTP-METHOD': 'DELETE' }) },
          payload: { refreshToken: signed.refreshToken },
        });
        assert.equal(out.statusCode, 204, out.body);
        const after = await auth(ctx.app, '/users/auth/refresh/', { refreshToken: signed.refreshToken });
        assert.equal(after.statusCode, 401);
      }
    });

    it('lets an account change its password (ending its sessions), not its role; the new one signs in', async () => {
      const carl = await send(ctx.app, shop, 'anonymous', {
        method: 'POST',
        url: '/user/',
        payload: { name: 'Carl', email: 'carl@example.com', password: 'first password' },
      });
      const id = body(carl).id as number;
      const signed = await signIn(ctx.app, 'carl@example.com', 'first password');
      const as = { authorization: `Bearer ${signed.token}` };
      const promote = await ctx.app.inject({
        method: 'PUT',
        url: `/user/${id}/`,
        headers: { ...JSON_HEADERS, ...as },
        payload: { role: 'staff' },
      });
      assert.equal(promote.statusCode, 403);
      const short = await ctx.app.inject({
        method: 'PUT',
        url: `/user/${id}/`,
        headers: { ...JSON_HEADERS, ...as },
        payload: { password: 'short' },
      });
      assert.equal(short.statusCode, 422);
      assert.equal(body<{ errors: { pointer: string }[] }>(short).errors[0]?.pointer, '/password');
      const change = await ctx.app.inject({
        method: 'PUT',
        url: `/user/${id}/`,
        headers: { ...JSON_HEADERS, ...as },
        payload: { password: 'second password', currentPassword: 'first password' },
      });
      assert.equal(change.statusCode, 200, change.body);
      assert.equal(body(change).password, undefined);
      const session = await auth(ctx.app, '/users/auth/refresh/', { refreshToken: signed.refreshToken });
      assert.equal(session.statusCode, 401, 'a new password ends the sessions of the old one');
      const old = await auth(ctx.app, '/users/auth/', { email: 'carl@example.com', password: 'first password' });
      assert.equal(old.statusCode, 401);
      await signIn(ctx.app, 'carl@example.com', 'second password');
    });

    it('never shows a password: not in reads, pages, feeds, the document or bulk creates', async () => {
      const origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const feed = await openEventStream(`${origin}/users/events/?access_token=${shop.people.sam.token}`);
      try {
        const made = await send(ctx.app, shop, 'anonymous', {
          method: 'POST',
          url: '/user/',
          payload: { name: 'Dee', email: 'dee@example.com', password: 'dee password 1' },
        });
        assert.equal(made.statusCode, 201);
        const [event] = await feed.take(1);
        assert.equal(event?.event, 'created');
        const texts = [made.body, event?.data ?? ''];
        for (const url of ['/users/', `/user/${body(made).id}/`, '/openapi.json']) {
          texts.push((await send(ctx.app, shop, 'sam', { method: 'GET', url })).body);
        }
        for (const text of texts) {
          assert.doesNotMatch(text, /dee password 1|scrypt/);
          for (const password of Object.values(PASSWORDS)) assert.ok(!text.includes(password));
        }
        assert.doesNotMatch(texts.slice(0, -1).join('\n'), /"password"/);
        const bulk = await send(ctx.app, shop, 'write', {
          method: 'POST',
          url: '/user/',
          payload: [{ name: 'Eve', email: 'eve@example.com', password: 'eve password 1' }],
        });
        assert.equal(bulk.statusCode, 400);
        assert.equal(body<{ errors: { pointer: string }[] }>(bulk).errors[0]?.pointer, '/0/password');
      } finally {
        await feed.close();
      }
    });
  });

  describe(`failed sign-ins (${kind.name})`, () => {
    const ctx = useApp(kind, shopSettings({ signInMaxFailures: 3 }));
    before(async () => {
      await openShop(ctx.app);
    });

    it('are limited per account: past the most, even the right password waits, with Retry-After', async () => {
      for (let i = 0; i < 3; i++) {
        const wrong = await auth(ctx.app, '/users/auth/', { email: 'ada@example.com', password: `guess ${i}` });
        assert.equal(wrong.statusCode, 401);
      }
      const right = await auth(ctx.app, '/users/auth/', { email: 'ADA@example.com', password: PASSWORDS.ada });
      assert.equal(right.statusCode, 429);
      assert.equal(body(right).type, '/problems/too-many-sign-ins');
      assert.ok(Number(right.headers['retry-after']) > 0);
    });

    it('are limited per address too: the same client cannot try account after account', async () => {
      // Three failures were counted for this address above; one more for another account.
      const next = await auth(ctx.app, '/users/auth/', { email: 'bob@example.com', password: PASSWORDS.bob });
      assert.equal(next.statusCode, 429);
    });
  });
}

describe('two instances on one PostgreSQL', { skip: !POSTGRES_AVAILABLE && 'PostgreSQL is not available' }, () => {
  const context = useDatabase(postgresKind);
  const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  before(async () => {
    for (let i = 0; i < 2; i++) {
      const config = defaultConfig({ maxEventLoopDelay: 0, ...shopSettings(), databaseUrl: context.db.url });
      apps.push(context.holding(await buildApp({ config, logStream: false })));
    }
  });

  it('accept each other’s tokens, also after a key rotation, with no shared setting', async () => {
    const [one, two] = apps as [(typeof apps)[0], (typeof apps)[0]];
    const shop = await openShop(one);
    const read = (app: typeof one, token: string) =>
      app.inject({ url: `/order/${shop.orders.ada}/`, headers: { authorization: `Bearer ${token}` } });
    assert.equal((await read(two, shop.people.ada.token)).statusCode, 200);
    const rotated = await runCommand(['rotate-keys'], { DATABASE_URL: context.db.url, SCHEMAS: 'schemas/shop' });
    assert.equal(rotated.code, 0, rotated.stderr);
    const before = decodeProtectedHeader(shop.people.ada.token).kid;
    // A new instance signs with the newest key at once; the running ones within a minute.
    const three = await buildApp({
      config: defaultConfig({ maxEventLoopDelay: 0, ...shopSettings(), databaseUrl: context.db.url }),
      logStream: false,
    });
    apps.push(three);
    const fresh = await signIn(three, 'ada@example.com', PASSWORDS.ada);
    assert.notEqual(decodeProtectedHeader(fresh.token).kid, before);
    for (const app of [one, two, three]) {
      assert.equal((await read(app, shop.people.ada.token)).statusCode, 200, 'the old key still verifies');
      assert.equal((await read(app, fresh.token)).statusCode, 200, 'the new key is found by its kid');
    }
  });
});

describe('accounts in the logs', () => {
  const context = useDatabase(STORE_KINDS[0] as (typeof STORE_KINDS)[number]);

  it('never hold a password, a token or a refresh token, at LOG_LEVEL=trace', async () => {
    const server = await startServer({
      DATABASE_URL: context.db.url,
      SCHEMAS: 'schemas/shop',
      LOG_LEVEL: 'trace',
      PASSWORD_HASH_COST: '10,8,1',
    });
    const secrets: string[] = [PASSWORDS.ada, 'a new password'];
    try {
      const post = (path: string, payload: unknown, headers: Record<string, string> = {}) =>
        fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { ...JSON_HEADERS, ...headers },
          body: JSON.stringify(payload),
        });
      const made = await post('/user/', { name: 'Ada', email: 'ada@example.com', password: PASSWORDS.ada });
      assert.equal(made.status, 201);
      assert.equal((await post('/users/auth/', { email: 'ada@example.com', password: 'wrong one' })).status, 401);
      const signed = (await (
        await post('/users/auth/', { email: 'ada@example.com', password: PASSWORDS.ada })
      ).json()) as {
        token: string;
        refreshToken: string;
      };
      secrets.push(signed.token, signed.refreshToken);
      const renewed = (await (await post('/users/auth/refresh/', { refreshToken: signed.refreshToken })).json()) as {
        token: string;
        refreshToken: string;
      };
      secrets.push(renewed.token, renewed.refreshToken);
      const bearer = { authorization: `Bearer ${renewed.token}` };
      const changed = await post(
        '/user/1/',
        { password: 'a new password', currentPassword: PASSWORDS.ada },
        { ...bearer, 'HTTP-X-HTTP-METHOD': 'PUT' },
      );
      assert.equal(changed.status, 200);
      const feed = await fetch(`${server.url}/orders/events/?access_token=${renewed.token}`, {
        headers: { accept: 'text/event-stream' },
      });
      assert.equal(feed.status, 200);
      await feed.body?.cancel();
      assert.equal(
        (await post('/users/auth/', { refreshToken: renewed.refreshToken }, { 'HTTP-X-HTTP-METHOD': 'DELETE' })).status,
        204,
      );
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const log = server.output.join('\n');
    assert.ok(
      server.output.some((line) => line.includes('/users/auth/')),
      'the requests were logged',
    );
    for (const secret of secrets) {
      for (const form of [secret, secret.split('.')[2] ?? secret])
        assert.ok(!log.includes(form), 'a secret was logged');
    }
    assert.doesNotMatch(log, /scrypt/);
  });
});

describe('failed sign-ins counted in Redis', { skip: !REDIS_AVAILABLE && 'Redis is not available' }, () => {
  const context = useDatabase(STORE_KINDS[0] as (typeof STORE_KINDS)[number]);
  const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  const forget = async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys('restock-sign-in:*');
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  };
  before(async () => {
    await forget();
    for (let i = 0; i < 2; i++) {
      const settings = shopSettings({ signInMaxFailures: 2, redisUrl: REDIS_URL });
      const config = defaultConfig({ maxEventLoopDelay: 0, ...settings, databaseUrl: context.db.url });
      apps.push(context.holding(await buildApp({ config, logStream: false })));
    }
  });
  after(forget);

  it('are shared by every instance: failures on one refuse the next sign-in on another', async () => {
    const [one, two] = apps as [(typeof apps)[0], (typeof apps)[0]];
    await openShop(one);
    for (const app of [one, two]) {
      const wrong = await auth(app, '/users/auth/', { email: 'ada@example.com', password: 'a wrong guess' });
      assert.equal(wrong.statusCode, 401);
    }
    const right = await auth(one, '/users/auth/', { email: 'ada@example.com', password: PASSWORDS.ada });
    assert.equal(right.statusCode, 429);
  });
});

describe('an outside identity provider', () => {
  const context = useDatabase(STORE_KINDS[0] as (typeof STORE_KINDS)[number]);
  let provider: Awaited<ReturnType<typeof jwt.outsideProvider>>;
  let app: Awaited<ReturnType<typeof buildApp>>;
  before(async () => {
    provider = await jwt.outsideProvider();
    const settings = shopSettings({
      authIssuer: provider.issuer,
      authAudience: provider.audience,
      authJwksUrl: provider.jwksUrl,
    });
    app = await buildApp({
      config: defaultConfig({ maxEventLoopDelay: 0, ...settings, databaseUrl: context.db.url }),
      logStream: false,
    });
  });
  after(async () => {
    await app?.close();
    await provider?.close();
  });

  it('is trusted for its own tokens, its claims read by the rules; a wrong audience or issuer is 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: provider.issuer,
      aud: provider.audience,
      sub: 'idp|42',
      role: 'staff',
      iat: now,
      exp: now + 300,
    };
    const token = (extra: Record<string, unknown> = {}) =>
      jwt.sign({ ...claims, ...extra }, { alg: 'RS256', kid: 'idp-1' }, provider.privateKey);
    const as = async (value: string, method: 'GET' | 'POST', url: string, payload?: object) =>
      app.inject({
        method,
        url,
        headers: { ...JSON_HEADERS, authorization: `Bearer ${value}` },
        ...(payload && { payload }),
      });
    const staff = await token();
    assert.equal((await as(staff, 'POST', '/product/', { name: 'Kettle', price: 30 })).statusCode, 201);
    const order = { items: [{ productId: 1, quantity: 1 }], status: 'placed' };
    assert.equal((await as(staff, 'POST', '/order/', order)).statusCode, 403, 'an outside account is no user here');
    for (const bad of [await token({ aud: 'another-api' }), await token({ iss: 'https://other.example' })]) {
      assert.equal((await as(bad, 'GET', '/products/')).statusCode, 401);
    }
    const ownKind = await token({ collection: 'users', sub: '1' });
    assert.equal((await as(ownKind, 'POST', '/order/', order)).statusCode, 403, 'it cannot pose as an own account');
  });
});
