/**
 * Flows' single-use tokens (verification, reset, email change): made and hashed as refresh
 * tokens are (../refresh-tokens.ts), 32 random bytes, base64url, handed out once (in a
 * mail's link) and stored only as their SHA-256 (base64url), a new one superseding the
 * account's older ones of the same purpose. Every way a sent token can fail is one refusal.
 */
import type { Collection } from '../../../core/collection.js';
import type { FlowTables, FlowToken } from '../../../store/account-model.js';
import { Refusal } from '../../refusal.js';
import { isTokenShaped, newRefreshToken, refreshTokenHash } from '../refresh-tokens.js';

export { refreshTokenHash as flowTokenHash } from '../refresh-tokens.js';

/** Stores a new token's hash with what it allows; resolves with the token, to be mailed and forgotten. */
export async function issueFlowToken(
  accounts: Pick<FlowTables, 'addFlowToken'>,
  token: Omit<FlowToken, 'hash'>,
): Promise<string> {
  const minted = newRefreshToken();
  await accounts.addFlowToken({ ...token, hash: minted.hash });
  return minted.token;
}

/** The one refusal of a token that is unknown, used, expired, superseded or another account's. */
export function invalidToken(): Refusal {
  return new Refusal(
    'invalid-token',
    'The token is not valid: it may be used already, expired, or replaced by a newer one. Ask for a new one.',
  );
}

/** The hash the store keeps of a token a client sent; one not shaped like a token is refused alike. */
export function sentTokenHash(token: unknown): string {
  if (!isTokenShaped(token)) throw invalidToken();
  return refreshTokenHash(token);
}

/** The unique field an account collection keeps its email address in, for lookups by it. */
export function emailFieldOf(collection: Pick<Collection, 'account' | 'unique'>) {
  const name = collection.account?.email;
  return name === undefined ? undefined : collection.unique.find((field) => field.path.join('.') === name);
}
