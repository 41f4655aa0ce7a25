/**
 * Signing in with one of an account collection's unique fields and the password: the
 * account, or one answer for every way it can fail (no such account, a wrong password, an
 * account with no password), in the same time either way (a decoy hash is checked when
 * there is no account).
 */
import type { Collection } from '../../core/collection.js';
import type { FlowTables } from '../../store/account-model.js';
import type { Records, StoredRecord } from '../../store/store.js';
import type { Holder } from '../in-flight-gate.js';
import { Refusal } from '../refusal.js';
import type { PasswordHasher } from './password-hasher.js';

/** The one refusal of a failed sign-in or refresh: it never says which part was wrong. */
export function invalidCredentials(): Refusal {
  return new Refusal('invalid-credentials', 'The name and password, or the refresh token, are not valid.');
}

/** The unique field a sign-in names, and its value: exactly one, beside the password. */
export function signInName(collection: Collection, body: Record<string, unknown>) {
  const names = collection.unique.map((field) => field.path.join('.'));
  const given = collection.unique.filter((field) => typeof body[field.path.join('.')] === 'string');
  const extra = Object.keys(body).filter((name) => name !== 'password' && !names.includes(name));
  if (given.length !== 1 || extra.length > 0 || typeof body.password !== 'string') {
    throw new Refusal(
      'invalid-record',
      `Sign in with "password" and one of ${names.map((name) => `"${name}"`).join(', ')}, each a string.`,
    );
  }
  const field = given[0] as (typeof given)[number];
  return { field, value: body[field.path.join('.')] as string, password: body.password };
}

/** The account `body` names, once its password matched; refuses with {@link invalidCredentials}. */
export async function signIn(
  collection: Collection,
  records: Records,
  hasher: PasswordHasher,
  body: Record<string, unknown>,
  holder: Holder,
): Promise<StoredRecord> {
  const { field, value, password } = signInName(collection, body);
  const account = await records.findUnique(field, value);
  const hash = account ? await records.secretOf(account.id) : undefined;
  const matched = await hasher.matches(password, hash, holder);
  if (!account || !matched) throw invalidCredentials();
  return account;
}

/**
 * Who a token is issued to: the account, with its claims and whether its email address is
 * proven (`verified`, rules' `auth.verified`), read when the token is issued: a token made
 * before a verification says false until it is renewed.
 */
export async function tokenSubject(
  accounts: Pick<FlowTables, 'isVerified'>,
  collection: Collection,
  record: StoredRecord,
) {
  const verified = await accounts.isVerified(collection.plural, record.id);
  return { collection: collection.plural, id: record.id, claims: { ...claimsOf(collection, record), verified } };
}

/** The claims an account's token carries: the record fields its collection names. */
function claimsOf(collection: Collection, record: StoredRecord): Record<string, unknown> {
  const fields = JSON.parse(record.data) as Record<string, unknown>;
  const claims: Record<string, unknown> = {};
  for (const name of collection.account?.claims ?? []) {
    if (fields[name] !== undefined) claims[name] = fields[name];
  }
  return claims;
}
