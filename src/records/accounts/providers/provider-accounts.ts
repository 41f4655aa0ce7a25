/**
 * The account a provider's sign-in comes to: the one its subject was linked to before;
 * else the account holding the same email, linked now, only when the provider says the
 * email is verified AND the account's own email is verified (an unverified claim, on
 * either side, would let whoever wrote it take the account over); else a new account,
 * its fields filled from the claims, verified when the provider says its email is.
 */
import type { ProviderSetting } from '../../../config/index.js';
import type { Collection } from '../../../core/collection.js';
import type { FlowTables } from '../../../store/account-model.js';
import type { Records, StoredRecord } from '../../../store/store.js';
import { UniqueViolationError } from '../../../store/store-errors.js';
import { Refusal } from '../../refusal.js';
import type { ProviderClaims } from './oidc-protocol.js';

/** What the flow needs of the store's account tables (src/store/account-model.ts). */
export type ProviderAccounts = Pick<
  FlowTables,
  'addFlowToken' | 'spendFlowToken' | 'isVerified' | 'findLink' | 'addLink'
>;

/** What the app hears when a sign-in could not end with an account (`?error=`). */
export type FlowError = 'denied' | 'provider-error' | 'account-exists' | 'account-refused';

export type AccountOutcome = { readonly record: StoredRecord } | { readonly error: FlowError };

interface AccountContext {
  readonly collection: Collection;
  readonly records: Records;
  readonly accounts: ProviderAccounts;
  readonly createAccount: (fields: Record<string, unknown>, verified: boolean) => Promise<StoredRecord>;
}

/** The unique field of `collection` an account's email is kept in (`x-auth.email`), if it has one. */
export function emailFieldOf(collection: Collection) {
  const name = collection.account?.email;
  return collection.unique.find((field) => field.path.length === 1 && field.path[0] === name);
}

export async function accountFor(
  context: AccountContext,
  provider: ProviderSetting,
  claims: ProviderClaims,
): Promise<AccountOutcome> {
  const { collection, records, accounts } = context;
  const plural = collection.plural;
  const link = { collection: plural, provider: provider.name, subject: claims.sub };
  const linked = await accounts.findLink(plural, provider.name, claims.sub);
  const known = linked === undefined ? undefined : await records.get(linked);
  if (known) return { record: known };

  const emailField = emailFieldOf(collection);
  const email = typeof claims.email === 'string' && claims.email !== '' ? claims.email : undefined;
  // Some providers send the boolean as text in their userinfo.
  const emailVerified = claims.email_verified === true || claims.email_verified === 'true';
  const holder = emailField && email !== undefined ? await records.findUnique(emailField, email) : undefined;
  if (holder) {
    if (!emailVerified || !(await accounts.isVerified(plural, holder.id))) return { error: 'account-exists' };
    await accounts.addLink({ ...link, accountId: holder.id });
    return { record: holder };
  }

  const fields: Record<string, unknown> = {};
  if (emailField && email !== undefined) fields[emailField.path[0] as string] = email;
  for (const [field, claim] of Object.entries(provider.fields)) {
    if (claims[claim] !== undefined) fields[field] = claims[claim];
  }
  let record: StoredRecord;
  try {
    record = await context.createAccount(fields, emailVerified && email !== undefined);
  } catch (error) {
    // Another sign-in took the email (or another unique value) meanwhile, or the claims
    // do not make a record the schema and the `create` rule accept.
    if (error instanceof UniqueViolationError) return { error: 'account-exists' };
    if (error instanceof Refusal) return { error: 'account-refused' };
    throw error;
  }
  // Not in the create's transaction: should this fail, the account is there unlinked,
  // and the next sign-in finds it by its verified email (or is refused, as any other).
  await accounts.addLink({ ...link, accountId: record.id });
  return { record };
}
