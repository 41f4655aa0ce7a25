/**
 * Tokens of an outside identity provider, accepted beside our own when one is configured:
 * its issuer and audience, and its keys as a JWKS URL or one PEM public key. The algorithm
 * always comes from the key: from each JWK of the set (jose matches it), or from what the
 * PEM key's type allows; never from the token's header, so no HMAC keyed with a public key
 * and no `alg: none` gets through.
 */
import { createPublicKey } from 'node:crypto';
import { type CryptoKey, createRemoteJWKSet, importSPKI, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { type Auth, ownClaims } from './access-tokens.js';

export interface OutsideProvider {
  /** Its `iss`: tokens naming it are checked against its keys, others never are. */
  readonly issuer: string;
  /** The `aud` its tokens must name (one of them). */
  readonly audience: string | readonly string[];
  /** Where it publishes its keys (a JWKS); or, instead, `publicKey`. */
  readonly jwksUrl?: string;
  /** Its public key, PEM (SPKI, `-----BEGIN PUBLIC KEY-----`). */
  readonly publicKey?: string;
}

/** The asymmetric algorithms of JWS, the only ones a set of public keys may be used with. */
const ASYMMETRIC = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** What a key of each type and curve may verify. */
function algorithmsOf(pem: string): string[] {
  const key = createPublicKey(pem);
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
    case 'rsa-pss':
      return ['PS256', 'PS384', 'PS512'];
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      const alg = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' }[curve ?? ''];
      if (alg) return [alg];
      break;
    }
    case 'ed25519':
      return ['EdDSA', 'Ed25519'];
  }
  throw new Error(`the outside provider's public key is of a type no JWS algorithm verifies with`);
}

/** A PEM key imported once for each algorithm a token asks of those its type allows. */
function pemKey(pem: string): JWTVerifyGetKey {
  const imported = new Map<string, Promise<CryptoKey>>();
  return ({ alg }) => {
    let key = imported.get(alg);
    if (!key) {
      key = importSPKI(pem, alg);
      imported.set(alg, key);
    }
    return key;
  };
}

export type OutsideVerifier = (token: string, now: number) => Promise<Auth | undefined>;

/** Checks a token of `provider`'s: `sub` becomes `id`, as given; its other claims, fields of the caller. */
export function outsideVerifier(provider: OutsideProvider, clockToleranceSeconds: number): OutsideVerifier {
  const { issuer, jwksUrl, publicKey } = provider;
  if ((jwksUrl === undefined) === (publicKey === undefined)) {
    throw new Error('an outside provider needs either a JWKS URL or a public key, not both');
  }
  const getKey = jwksUrl !== undefined ? createRemoteJWKSet(new URL(jwksUrl)) : pemKey(publicKey ?? '');
  const algorithms = publicKey !== undefined ? algorithmsOf(publicKey) : ASYMMETRIC;
  const audience = typeof provider.audience === 'string' ? provider.audience : [...provider.audience];
  return async (token, now) => {
    try {
      const { payload } = await jwtVerify(token, getKey, {
        algorithms,
        issuer,
        audience,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: clockToleranceSeconds,
        currentDate: new Date(now),
      });
      if (typeof payload.sub !== 'string' || payload.sub === '') return undefined;
      // Its claims without `collection`: that names one of our own account collections,
      // which only our own tokens may claim.
      return { ...ownClaims(payload), id: payload.sub };
    } catch {
      return undefined;
    }
  };
}
