/**
 * Confirming an email change: the token the confirmation mail carried (minted by
 * ./flow-letters.ts, its new address stored beside its hash) applies the new address in a
 * write that spends it, and marks the address proven. An address another account took
 * meanwhile is the unique field's conflict (409), and the token stays unspent.
 */
import type { Collection } from '../../../core/collection.js';
import type { Store, StoredRecord } from '../../../store/store.js';
import { InvalidFlowTokenError } from '../../../store/store.js';
import { Refusal } from '../../refusal.js';
import { invalidToken, sentTokenHash } from './flow-tokens.js';

/** The hash of the token `{ token }` sends; any other body is refused. */
export function emailConfirmation(body: Record<string, unknown>): string {
  const { token, ...extra } = body;
  if (Object.keys(extra).length > 0) throw new Refusal('invalid-record', 'Confirm an email change with {"token"}.');
  return sentTokenHash(token);
}

/** Applies the new address the token of `hash` carries to its account; resolves with the account as changed. */
export async function confirmEmailChange(
  store: Pick<Store, 'collection' | 'accounts'>,
  collection: Collection,
  hash: string,
  now: number,
): Promise<StoredRecord> {
  const field = collection.account?.email;
  const found = await store.accounts.findFlowToken('email', collection.plural, hash, now);
  if (!found || found.accountId === null || found.detail === null || field === undefined) throw invalidToken();
  const spend = { purpose: 'email' as const, hash, now };
  try {
    const changed = { [field]: found.detail };
    const record = await store.collection(collection).merge(found.accountId, changed, { spend, verified: true });
    if (!record) throw invalidToken();
    return record;
  } catch (error) {
    throw error instanceof InvalidFlowTokenError ? invalidToken() : error;
  }
}
