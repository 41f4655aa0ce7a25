/**
 * restock's own access tokens: JWTs signed with the newest key of the store's
 * (./signing-keys.ts), ES256 only, naming the key by `kid`. A token is checked against the
 * key its kid names, with the algorithm pinned to the key's, never taken from the token:
 * `alg: none`, an HMAC keyed with the public key, a key of nobody's all fail.
 */
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { type KeyRing, SIGNING_ALG } from './signing-keys.js';

/** The `iss` of every own token: how a token tells it is ours, not an outside provider's. */
export const OWN_ISSUER = 'restock';

/** The claims a token sets itself, which an account's claims may not replace. */
export const REGISTERED_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'collection'] as const;

/** The caller a token names: `id` and `collection` for an account of ours, and its other claims. */
export interface Auth {
  /** The account's id (a number), or an outside provider's `sub` as it gave it. */
  readonly id: number | string;
  /** The account's collection; an outside provider's tokens have none. */
  readonly collection?: string;
  readonly [claim: string]: unknown;
}

/** An account, as a token is issued to it. */
export interface Account {
  readonly collection: string;
  readonly id: number;
  /** The claims its collection names (`x-auth.claims`), copied into its tokens. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** `claims` without those a token sets itself. */
export function ownClaims(claims: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const names: readonly string[] = REGISTERED_CLAIMS;
  return Object.fromEntries(Object.entries(claims).filter(([name]) => !names.includes(name)));
}

/**
 * The `aud` of a file token (a download's `?token=`, where a link cannot carry a header): an
 * access token has none, and each check refuses the other's, so neither stands in for the other.
 */
export const FILE_AUDIENCE = 'restock:files';

/**
 * An access token for `account`, valid for `lifeSeconds` from `now` (milliseconds); with
 * `audience`, a token for that use alone (a file token).
 */
export async function signAccessToken(
  keys: KeyRing,
  account: Account,
  lifeSeconds: number,
  now: number,
  audience?: string,
): Promise<string> {
  const { kid, key } = await keys.signer();
  const issuedAt = Math.floor(now / 1000);
  const signed = new SignJWT({ ...ownClaims(account.claims), collection: account.collection });
  if (audience !== undefined) signed.setAudience(audience);
  return signed
    .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'JWT' })
    .setSubject(String(account.id))
    .setIssuer(OWN_ISSUER)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + lifeSeconds)
    .sign(key);
}

export interface OwnVerifyOptions {
  /** Whether the collection named `plural` holds accounts: a token naming another is refused. */
  readonly holdsAccounts: (plural: string) => boolean;
  readonly clockToleranceSeconds: number;
  /**
   * The longest life an own token can have: one claiming more (`exp` past `iat` plus it) was
   * not made by restock, and neither was one whose `iat` is older than it.
   */
  readonly maxAgeSeconds: number;
  readonly now: number;
  /** The use the token must be made for (a file token's); absent: an access token, which names no audience. */
  readonly audience?: string;
}

const ACCOUNT_ID = /^[1-9][0-9]{0,15}$/;

/** The caller an own token names, or undefined for a token that is not one, or not valid. */
export async function verifyOwnToken(
  keys: KeyRing,
  token: string,
  options: OwnVerifyOptions,
): Promise<Auth | undefined> {
  let kid: unknown;
  try {
    ({ kid } = decodeProtectedHeader(token));
  } catch {
    return undefined;
  }
  if (typeof kid !== 'string') return undefined;
  // Read before the signature is checked, and possibly from the store: an unknown kid costs
  // one read at most every few seconds (KeyRing), however many tokens name one.
  const key = await keys.verifier(kid);
  if (!key) return undefined;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALG],
      issuer: OWN_ISSUER,
      requiredClaims: ['sub', 'iat', 'exp'],
      clockTolerance: options.clockToleranceSeconds,
      currentDate: new Date(options.now),
      maxTokenAge: options.maxAgeSeconds,
      ...(options.audience !== undefined && { audience: options.audience }),
    });
    // A token made for another use (a file token's `?token=`) is no access token.
    if (options.audience === undefined && payload.aud !== undefined) return undefined;
    if ((payload.exp as number) - (payload.iat as number) > options.maxAgeSeconds) return undefined;
    const { sub, collection } = payload;
    if (typeof collection !== 'string' || !options.holdsAccounts(collection)) return undefined;
    if (typeof sub !== 'string' || !ACCOUNT_ID.test(sub)) return undefined;
    const id = Number(sub);
    if (!Number.isSafeInteger(id)) return undefined;
    return { ...ownClaims(payload), id, collection };
  } catch {
    return undefined;
  }
}
