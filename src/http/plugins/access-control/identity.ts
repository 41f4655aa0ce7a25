/**
 * Who a request comes from, read from its `Authorization: Bearer …` (or a feed's
 * `?access_token=`): one of the configured API keys, an account's access token (restock's
 * own or an outside provider's), or no one. Keys are kept as SHA-256 hashes only
 * (src/config/api-keys.ts) and compared with `timingSafeEqual`; tokens are verified by
 * src/records/accounts/.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { type ApiKey, hashKey, KEY_TEXT } from '../../../config/index.js';
import type { RuleAuth } from '../../../core/rules/rule-tree.js';
import type { VerifiedToken, VerifiedTokens } from '../../../records/accounts/index.js';
import type { Caller } from '../../../records/rules/record-access.js';

/** A signed-in account, as its token says, and when the token expires (milliseconds since the epoch). */
export type Account = VerifiedToken;

/** What a request's credentials turned out to be. */
export type Identity = ApiKey | Account | 'none' | 'invalid';

/** Access tokens: those verified already, and the full check of a new one. */
export type TokenCheck = Pick<VerifiedTokens, 'known' | 'verify'>;

const identityKey = Symbol('restock.identity');

interface IdentifiedRequest extends FastifyRequest {
  [identityKey]: Identity;
}

/** A JWT's shape: three base64url parts. Keys are matched first, so a key of this shape is still a key. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function setIdentity(request: FastifyRequest, identity: Identity): void {
  (request as IdentifiedRequest)[identityKey] = identity;
}

export function identityOf(request: FastifyRequest): Identity {
  return (request as Partial<IdentifiedRequest>)[identityKey] ?? 'none';
}

/** The key a request was made with, once identified; undefined without a valid key. */
export function credentialOf(request: FastifyRequest): ApiKey | undefined {
  const identity = identityOf(request);
  return typeof identity === 'object' && 'scope' in identity ? identity : undefined;
}

/** The account a request was made by, once identified; undefined without a valid token. */
export function accountOf(request: FastifyRequest): RuleAuth | undefined {
  const identity = identityOf(request);
  return typeof identity === 'object' && 'auth' in identity ? identity.auth : undefined;
}

/** When the token a request was made with expires; undefined for a key, no credential, or a token without `exp`. */
export function tokenExpiryOf(request: FastifyRequest): number | undefined {
  const identity = identityOf(request);
  return typeof identity === 'object' && 'auth' in identity ? identity.expiresAt : undefined;
}

/** The caller as the records' rules see it. */
export function callerOf(request: FastifyRequest): Caller {
  const key = credentialOf(request);
  if (key) return { kind: 'key', scope: key.scope };
  return { auth: accountOf(request) ?? null };
}

/** One name per caller, for what is counted or kept per caller: a key's name, an account, else undefined. */
export function callerName(request: FastifyRequest): string | undefined {
  const key = credentialOf(request);
  if (key) return `key:${key.name}`;
  const auth = accountOf(request);
  return auth ? `account:${String(auth.collection ?? auth.iss ?? '')}:${String(auth.id)}` : undefined;
}

/** The identity `header` (an Authorization header's value) gives. */
export async function identify(
  header: string | undefined,
  keys: readonly ApiKey[],
  tokens: TokenCheck | undefined,
): Promise<Identity> {
  if (header === undefined || header === '') return 'none';
  const token = /^Bearer +(\S+) *$/i.exec(header)?.[1];
  if (token === undefined || !KEY_TEXT.test(token)) return 'invalid';
  const jwt = tokens !== undefined && JWT_SHAPE.test(token);
  // A token seen before is one map lookup: no key is hashed for it, no signature checked.
  const known = jwt ? tokens.known(token) : undefined;
  if (known) return known;
  const key = keyOf(token, keys);
  if (key) return key;
  return (jwt && (await tokens.verify(token))) || 'invalid';
}

function keyOf(token: string, keys: readonly ApiKey[]): ApiKey | undefined {
  if (keys.length === 0) return undefined;
  const hash = hashKey(token);
  let found: ApiKey | undefined;
  // Every key is compared, match or not, so that the time taken says nothing about which matched.
  for (const key of keys) {
    if (timingSafeEqual(hash, key.hash)) found = key;
  }
  return found;
}
