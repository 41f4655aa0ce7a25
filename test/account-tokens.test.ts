/**
 * Accounts' tokens on both stores: access tokens issued and verified, every forged or
 * out-of-date one refused, outside providers (a JWKS over loopback, a PEM key), refresh
 * rotation and its reuse detection, sign-out, key rotation, and instances sharing one
 * database. Time is the service's clock, moved by the test: nothing waits for it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, type JWTPayload } from 'jose';
import type { TokenOptions, TokenService } from '../src/records/accounts/index.js';
import { openTokenService, rotateSigningKeys } from '../src/records/accounts/index.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { catalogOf } from './helpers/catalog.js';
import { cli } from './helpers/cli.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import * as jwt from './helpers/tokens.js';

const COLLECTIONS = ['users', 'products'];
const ADA = { collection: 'users', id: 7, claims: { role: 'admin' } };
const seconds = (ms: number) => Math.floor(ms / 1000);
const KEEP = { accessTokenSeconds: 900, clockToleranceSeconds: 5 };

for (const kind of STORE_KINDS) {
  describe(`account tokens (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    let tokens: TokenService;
    let clock = Date.now();
    const open = (on: Store, options: Partial<TokenOptions> = {}) =>
      openTokenService(on.accounts, { holdsAccounts: (plural) => plural === 'users', now: () => clock, ...options });
    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, catalogOf(COLLECTIONS));
      tokens = await open(store);
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('issues an ES256 access token naming its key, and verifies it', async () => {
      const issued = await tokens.issue(ADA);
      assert.equal(issued.expiresIn, 900);
      assert.match(issued.refreshToken, /^[A-Za-z0-9_-]{43}$/);
      const { kid } = await jwt.storeKey(store.accounts);
      assert.deepEqual(jwt.headerOf(issued.token), { alg: 'ES256', kid, typ: 'JWT' });
      assert.deepEqual(jwt.claimsOf(issued.token), jwt.ownClaims(clock));
      assert.deepEqual(await tokens.verify(issued.token), { role: 'admin', id: 7, collection: 'users' });
      await assert.rejects(tokens.issue({ ...ADA, collection: 'products' }), /not a collection of accounts/);
    });

    it('refuses expired tokens, and tokens not yet valid, past a small clock tolerance', async () => {
      const { token } = await tokens.issue(ADA);
      const issuedAt = clock;
      try {
        clock = issuedAt + 903_000;
        assert.ok(await tokens.verify(token), 'within the tolerance of its expiry');
        clock = issuedAt + 906_000;
        assert.equal(await tokens.verify(token), undefined);
      } finally {
        clock = issuedAt;
      }
      const { kid, privateKey } = await jwt.storeKey(store.accounts);
      const early = await jwt.sign(
        jwt.ownClaims(clock, { nbf: seconds(clock) + 60 }),
        { alg: 'ES256', kid },
        privateKey,
      );
      assert.equal(await tokens.verify(early), undefined);
    });

    it('refuses forged tokens: alg none, HS256 keyed with the public key, a foreign kid, a changed claim', async () => {
      const { kid, privateKey, publicJwk, publicPem } = await jwt.storeKey(store.accounts);
      const claims = jwt.ownClaims(clock);
      const valid = await jwt.sign(claims, { alg: 'ES256', kid }, privateKey);
      assert.ok(await tokens.verify(valid), 'the same claims, properly signed, pass');
      const foreign = await generateKeyPair('ES256');
      const forged = [
        jwt.unsignedToken({ kid, typ: 'JWT' }, claims),
        await jwt.sign(claims, { alg: 'HS256', kid }, Buffer.from(publicPem)),
        await jwt.sign(claims, { alg: 'HS256', kid }, Buffer.from(publicJwk)),
        await jwt.sign(claims, { alg: 'ES256', kid: 'someone-else' }, foreign.privateKey),
        await jwt.sign(claims, { alg: 'ES256', kid }, foreign.privateKey),
        await jwt.sign(claims, { alg: 'ES256' }, privateKey),
        await jwt.sign({ ...claims, iss: 'https://evil.example' }, { alg: 'ES256', kid }, privateKey),
        await jwt.sign({ ...claims, iss: undefined }, { alg: 'ES256', kid }, privateKey),
        await jwt.sign({ ...claims, collection: 'products' }, { alg: 'ES256', kid }, privateKey),
        await jwt.sign({ ...claims, sub: 'ada' }, { alg: 'ES256', kid }, privateKey),
        await jwt.sign({ ...claims, exp: undefined }, { alg: 'ES256', kid }, privateKey),
        jwt.withPayload(valid, (payload) => ({ ...payload, sub: '8' })),
        jwt.withPayload(valid, (payload) => ({ ...payload, role: 'root' })),
        'not.a.token',
        '',
      ];
      for (const [at, token] of forged.entries()) assert.equal(await tokens.verify(token), undefined, `forgery ${at}`);
    });

    it('reads the keys again for an unknown kid at most once in a few seconds', async () => {
      let reads = 0;
      const listKeys = () => {
        reads++;
        return store.accounts.listKeys();
      };
      const service = await open({ ...store, accounts: { ...store.accounts, listKeys } });
      const before = reads;
      const { privateKey } = await generateKeyPair('ES256');
      for (let i = 0; i < 50; i++) {
        const token = await jwt.sign(jwt.ownClaims(clock), { alg: 'ES256', kid: `bogus-${i}` }, privateKey);
        assert.equal(await service.verify(token), undefined);
      }
      assert.equal(reads - before, 1);
    });

    it("accepts an outside provider's tokens through its JWKS, checking issuer and audience", async () => {
      const idp = await jwt.outsideProvider();
      try {
        const service = await open(store, {
          outside: { issuer: idp.issuer, audience: idp.audience, jwksUrl: idp.jwksUrl },
        });
        const exp = seconds(clock) + 60;
        const claims = { sub: 'auth0|42', iss: idp.issuer, aud: idp.audience, role: 'staff', collection: 'users', exp };
        const idpSigned = (payload: JWTPayload) => jwt.sign(payload, { alg: 'RS256', kid: 'idp-1' }, idp.privateKey);
        const token = await idpSigned(claims);
        // Its `collection` is left out: that names our own accounts, which only our tokens may claim.
        assert.deepEqual(await service.verify(token), { role: 'staff', id: 'auth0|42' });
        const refused = [
          await idpSigned({ ...claims, aud: 'another-api' }),
          await idpSigned({ ...claims, iss: 'https://other.example' }),
          await idpSigned({ ...claims, exp: exp - 120 }),
          await jwt.sign(claims, { alg: 'HS256', kid: 'idp-1' }, Buffer.from(idp.publicJwk)),
          jwt.unsignedToken({ kid: 'idp-1' }, claims),
        ];
        for (const [at, bad] of refused.entries()) assert.equal(await service.verify(bad), undefined, `token ${at}`);
        assert.equal(await tokens.verify(token), undefined, 'a service without the provider refuses it');
      } finally {
        await idp.close();
      }
    });

    it("accepts an outside provider's tokens through a PEM key, with the algorithms its type allows", async () => {
      const idp = await jwt.pemProvider('ES384');
      const service = await open(store, {
        outside: { issuer: idp.issuer, audience: idp.audience, publicKey: idp.publicKey },
      });
      const claims = { sub: 'u-1', iss: idp.issuer, aud: [idp.audience, 'x'], exp: seconds(clock) + 60 };
      assert.deepEqual(await service.verify(await jwt.sign(claims, { alg: 'ES384' }, idp.privateKey)), { id: 'u-1' });
      const rsa = await jwt.pemProvider('RS256');
      const refused = [
        await jwt.sign({ ...claims, aud: 'x' }, { alg: 'ES384' }, idp.privateKey),
        await jwt.sign({ ...claims, iss: 'restock' }, { alg: 'ES384' }, idp.privateKey),
        await jwt.sign(claims, { alg: 'HS256' }, Buffer.from(idp.publicKey)),
        await jwt.sign(claims, { alg: 'RS256' }, rsa.privateKey),
      ];
      for (const [at, bad] of refused.entries()) assert.equal(await service.verify(bad), undefined, `token ${at}`);
    });

    it('rotates refresh tokens; a reused one revokes its family, the newer tokens too', async () => {
      const { refreshToken: first } = await tokens.issue(ADA);
      assert.equal(await tokens.refresh('products', first), undefined, 'another collection');
      const second = await tokens.refresh('users', first);
      assert.equal(second?.id, 7);
      const third = await tokens.refresh('users', second?.refreshToken ?? '');
      assert.ok(third);
      assert.equal(await tokens.refresh('users', first), undefined, 'used before');
      assert.equal(await tokens.refresh('users', third.refreshToken), undefined, 'its family is revoked');
      const other = await tokens.issue(ADA);
      assert.ok(await tokens.refresh('users', other.refreshToken), 'another family is untouched');
      for (const bad of ['', 'x', 'A'.repeat(43), `${first}=`])
        assert.equal(await tokens.refresh('users', bad), undefined);
    });

    it('refuses an expired refresh token, signs a family out, and sweeps what expired', async () => {
      const issuedAt = clock;
      const kept = await tokens.issue(ADA);
      const out = await tokens.issue(ADA);
      await tokens.signOut('users', out.refreshToken);
      assert.equal(await tokens.refresh('users', out.refreshToken), undefined);
      try {
        clock = issuedAt + 31 * 24 * 3600_000;
        assert.equal(await tokens.refresh('users', kept.refreshToken), undefined);
        assert.ok((await tokens.sweep()) >= 2);
      } finally {
        clock = issuedAt;
      }
      assert.equal(await tokens.refresh('users', kept.refreshToken), undefined, 'swept');
    });

    it('of two refreshes racing with one token on two instances, exactly one wins', async () => {
      const twin = await openStore(db.url, catalogOf(COLLECTIONS));
      try {
        const other = await open(twin);
        for (let round = 0; round < 8; round++) {
          const { refreshToken } = await tokens.issue(ADA);
          const results = await Promise.all([tokens, other].map((one) => one.refresh('users', refreshToken)));
          assert.equal(results.filter(Boolean).length, 1, `round ${round}`);
          // The loser presented a token already used: the family is revoked, the winner's token with it.
          const won = results.find(Boolean)?.refreshToken ?? '';
          assert.equal(await tokens.refresh('users', won), undefined);
        }
      } finally {
        await twin.close();
      }
    });

    it('rotate-keys: new tokens carry the new kid, the old key verifies for one token life more, then nothing', async () => {
      const before = await tokens.issue(ADA);
      const old = await jwt.storeKey(store.accounts);
      const { code, stdout } = await cli(db.url, ['rotate-keys']);
      assert.equal(code, 0);
      const kid = /added signing key (\S+) /.exec(stdout)?.[1];
      assert.ok(kid && kid !== jwt.headerOf(before.token).kid, stdout);
      assert.match(stdout, /^added signing key \S+ .*keys kept, 0 expired keys removed\n$/);
      const startedAt = clock;
      try {
        clock += 61_000;
        const after = await tokens.issue(ADA);
        assert.equal(jwt.headerOf(after.token).kid, kid);
        assert.ok(await tokens.verify(before.token), "the old key's token is still valid");
        // One reload and one token life later, a token the old key signs just now is refused:
        // a leaked key is dead then, even while it stays in the table.
        const keys = await store.accounts.listKeys();
        const supersededAt = keys.find((key) => key.kid === old.kid)?.supersededAt ?? 0;
        clock = supersededAt + 60_000 + 905_000 + 1_000;
        const forged = await jwt.sign(
          jwt.ownClaims(clock, { sub: '7' }),
          { alg: 'ES256', kid: old.kid },
          old.privateKey,
        );
        assert.equal(await tokens.verify(forged), undefined);
        const rotation = await rotateSigningKeys(store.accounts, { ...KEEP, now: () => clock + 7_200_000 });
        assert.ok(rotation.removed >= 1, 'keys superseded hours ago are removed');
        assert.equal(rotation.kept, 2, 'the key it superseded and the new one');
      } finally {
        clock = startedAt;
      }
    });

    it("instances starting together on one empty database accept each other's tokens", async () => {
      const fresh = await kind.create();
      const startedAt = clock;
      const stores = await Promise.all([0, 1].map(() => openStore(fresh.url, catalogOf(COLLECTIONS))));
      try {
        const [a, b] = await Promise.all(stores.map((one) => open(one)));
        assert.ok(a && b);
        assert.ok((await b.verify((await a.issue(ADA)).token)) && (await a.verify((await b.issue(ADA)).token)));
        await rotateSigningKeys(stores[1]?.accounts ?? store.accounts, KEEP);
        await b.reloadKeys();
        const rotated = await b.issue(ADA);
        // Past the pause between reads for unknown kids, which the first tokens may have begun.
        clock += 6_000;
        assert.ok(await a.verify(rotated.token), 'an unknown kid makes the other read the keys again');
        const refreshed = await b.refresh('users', (await a.issue(ADA)).refreshToken);
        assert.equal(refreshed?.id, 7);
      } finally {
        clock = startedAt;
        for (const one of stores) await one.close();
        await fresh.drop();
      }
    });
  });
}
