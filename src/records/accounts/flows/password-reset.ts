/**
 * Password reset. The request does the same work whatever the address: it checks the body's
 * shape and queues one mail of kind `reset-request` naming the address, then answers; it
 * never looks the address up, so neither its answer nor its time says whether an account
 * has it. The mail's composer (./flow-letters.ts) looks it up when the mail is sent and
 * mints a token only for an account that exists. The confirmation spends the token in the
 * write that sets the new password, which revokes every session of the account.
 */
import { randomInt } from 'node:crypto';
import type { Collection } from '../../../core/collection.js';
import type { Store, StoredRecord } from '../../../store/store.js';
import { InvalidFlowTokenError } from '../../../store/store.js';
import type { Holder } from '../../in-flight-gate.js';
import { Refusal } from '../../refusal.js';
import { takePassword } from '../password-field.js';
import type { PasswordHasher } from '../password-hasher.js';
import type { FailureCounts } from '../sign-in-limit.js';
import { invalidToken, sentTokenHash } from './flow-tokens.js';

/**
 * How far after its request a mail asked for by address may be due: a moment drawn at
 * random within it. Sending to an account that exists costs the server a token's write and
 * an SMTP exchange that a missing one does not; sent at once, that work would slow the
 * request just after the ask, and the next request's time would tell whether the address
 * has an account. Spread at random, it falls on whatever requests come then.
 */
export const ADDRESS_MAIL_SPREAD_MS = 2000;

/** When a mail asked for by address is due: at `now` plus a random part of {@link ADDRESS_MAIL_SPREAD_MS}. */
export function addressMailDue(now: number): number {
  return now + randomInt(ADDRESS_MAIL_SPREAD_MS);
}

/** The longest address a reset may name (RFC 5321's path, 256 octets, less its brackets). */
const MAX_ADDRESS_LENGTH = 254;

/** The address `{ "email" }` names, refused unless the body is exactly that. */
export function resetAddress(body: Record<string, unknown>): string {
  const { email } = body;
  const extra = Object.keys(body).some((name) => name !== 'email');
  if (typeof email !== 'string' || email === '' || email.length > MAX_ADDRESS_LENGTH || extra) {
    throw new Refusal('invalid-record', 'Ask for a password reset with {"email": "<the account\'s address>"}.', {
      errors: [{ pointer: '/email', message: `must be a string of 1 to ${MAX_ADDRESS_LENGTH} characters, alone` }],
    });
  }
  return email;
}

/**
 * Queues the mail of a reset request for `address`, whether an account has it or not, due
 * at {@link addressMailDue}, unless `max` requests came for that address, or from `client`,
 * in the window of `counts` (429): mail to an address is not to be sent in a loop by
 * anyone. Resolves with when the mail is due.
 */
export async function requestReset(
  store: Pick<Store, 'mail'>,
  collection: Collection,
  { address, client, now }: { address: string; client: string; now: number },
  { counts, max }: { counts: FailureCounts; max: number },
): Promise<number> {
  const keys = [`reset:${collection.plural}:${address.toLowerCase()}`, `reset:${client}`];
  const seen = await Promise.all(keys.map((key) => counts.read(key)));
  const over = seen.filter(({ count }) => count >= max);
  if (over.length > 0) {
    const retryAfter = Math.ceil(Math.max(...over.map(({ leftMs }) => leftMs)) / 1000);
    const detail = `Too many password resets asked for this address or from this client; retry in ${retryAfter} s.`;
    throw new Refusal('too-many-requests', detail, { retryAfter });
  }
  await Promise.all(keys.map((key) => counts.add(key)));
  const due = addressMailDue(now);
  await store.mail.enqueue({ kind: 'reset-request', collection: collection.plural, address }, due);
  return due;
}

/** What a reset's confirmation sends: the token, the new password, and whether to sign in. */
export interface ResetConfirmation {
  readonly hash: string;
  readonly password: string;
  readonly signIn: boolean;
}

/** `{ token, password, signIn? }` read; a token not shaped like one is refused as any bad token is. */
export function resetConfirmation(collection: Collection, body: Record<string, unknown>): ResetConfirmation {
  const { token, password, signIn = false, ...extra } = body;
  if (typeof password !== 'string' || typeof signIn !== 'boolean' || Object.keys(extra).length > 0) {
    throw new Refusal('invalid-record', 'Confirm a reset with {"token", "password"} and, if wanted, "signIn": true.');
  }
  const hash = sentTokenHash(token);
  // The collection's password schema, as a sign-up or a change checks it.
  takePassword(collection, { password });
  return { hash, password, signIn };
}

/**
 * Sets the password the confirmation sends, spending its token in the same write (so that
 * of two confirmations with one token, one succeeds); the new hash revokes every refresh
 * token family of the account (src/store/sql/accounts/secret-sql.ts). The account is then
 * proven to hold its address. Resolves with the account.
 */
export async function confirmReset(
  store: Pick<Store, 'collection' | 'accounts'>,
  hasher: PasswordHasher,
  collection: Collection,
  { hash, password }: ResetConfirmation,
  { now, address }: { now: number; address: string },
): Promise<StoredRecord> {
  const found = await store.accounts.findFlowToken('reset', collection.plural, hash, now);
  if (!found || found.accountId === null) throw invalidToken();
  // The account's share of hashing: no one else's sign-ins wait for a reset.
  const holder: Holder = { client: `reset:${collection.plural}:${found.accountId}`, address };
  const secret = await hasher.hash(password, holder);
  const spend = { purpose: 'reset' as const, hash, now };
  try {
    const record = await store.collection(collection).merge(found.accountId, {}, { secret, spend, verified: true });
    if (!record) throw invalidToken();
    return record;
  } catch (error) {
    throw error instanceof InvalidFlowTokenError ? invalidToken() : error;
  }
}
