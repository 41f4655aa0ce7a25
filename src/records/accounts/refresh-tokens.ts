/**
 * Refresh tokens: 32 random bytes, base64url, handed to the client once and stored only as
 * their SHA-256, in families (one per sign-in). Each refresh uses its token up and hands
 * out the next of the family; a token presented a second time means two parties hold the
 * family, so the whole family is revoked (OAuth 2.0 Security BCP, refresh token rotation).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AccountTables } from '../../store/account-model.js';

const TOKEN_BYTES = 32;

/** What a refresh token looks like (and a flow's, made alike): anything else is refused before the store is asked. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `value` is shaped as the tokens made here are. */
export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_SHAPE.test(value);
}

/** The hash the store keeps of `token`. */
export function refreshTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** A new refresh token and its hash. */
export function newRefreshToken(): { token: string; hash: string } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, hash: refreshTokenHash(token) };
}

/** Stores the first token of a new family for an account; resolves with the token. */
export async function startFamily(
  accounts: AccountTables,
  account: { collection: string; id: number },
  expiresAt: number,
): Promise<string> {
  const { token, hash } = newRefreshToken();
  await accounts.addRefreshToken({
    hash,
    family: randomUUID(),
    collection: account.collection,
    accountId: account.id,
    expiresAt,
  });
  return token;
}

/** Uses `token` up: the account and the next token of its family, or undefined. */
export async function rotateRefreshToken(
  accounts: AccountTables,
  collection: string,
  token: string,
  expiresAt: number,
  now: number,
): Promise<{ id: number; refreshToken: string } | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const next = newRefreshToken();
  const outcome = await accounts.rotateRefreshToken(
    collection,
    refreshTokenHash(token),
    { hash: next.hash, expiresAt },
    now,
  );
  return outcome.state === 'rotated' ? { id: outcome.accountId, refreshToken: next.token } : undefined;
}

/** Revokes the family of `token`; resolves with whether there was one. */
export async function revokeRefreshFamily(accounts: AccountTables, collection: string, token: string) {
  if (!TOKEN_SHAPE.test(token)) return false;
  return accounts.revokeFamily(collection, refreshTokenHash(token));
}
