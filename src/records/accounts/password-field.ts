/**
 * The password of an account collection's create or change: taken out of the record's
 * fields (it is never stored among them), and checked against the schema's `password`
 * (or the default: 8 to 1,024 characters) before it is hashed. A change's `currentPassword`
 * (./flows/account-change.ts) is taken out too, never stored nor echoed.
 */
import { MAX_PASSWORD_LENGTH, PASSWORD_FIELD } from '../../core/accounts.js';
import type { Collection } from '../../core/collection.js';
import { Refusal } from '../refusal.js';
import { CURRENT_PASSWORD_FIELD } from './flows/account-change.js';

type Fields = Record<string, unknown>;

/** The fields without the password (and `currentPassword`), and each when it was sent. */
export function takePassword(
  collection: Pick<Collection, 'account' | 'schema' | 'singular'>,
  sent: Fields,
): { fields: Fields; password?: string; currentPassword?: unknown } {
  if (!collection.account) return { fields: sent };
  const current = Object.hasOwn(sent, CURRENT_PASSWORD_FIELD);
  if (!current && !Object.hasOwn(sent, PASSWORD_FIELD)) return { fields: sent };
  const { [CURRENT_PASSWORD_FIELD]: currentPassword, ...fields } = sent;
  const taken = current ? { currentPassword } : {};
  if (!Object.hasOwn(fields, PASSWORD_FIELD)) return { fields, ...taken };
  const { [PASSWORD_FIELD]: password, ...rest } = fields;
  const refuse = (message: string) =>
    new Refusal('schema-violation', `The ${collection.singular}'s password is not one this server takes.`, {
      errors: [{ pointer: `/${PASSWORD_FIELD}`, message }],
    });
  if (typeof password !== 'string') throw refuse('must be a string (a password cannot be removed, only changed)');
  if (password.length > MAX_PASSWORD_LENGTH) throw refuse(`must be at most ${MAX_PASSWORD_LENGTH} characters`);
  const violations = collection.schema?.checkPassword?.(password) ?? [];
  if (violations.length > 0) {
    throw new Refusal('schema-violation', `The ${collection.singular}'s password is not one this server takes.`, {
      errors: violations.map(({ pointer, message }) => ({ pointer: `/${PASSWORD_FIELD}${pointer}`, message })),
    });
  }
  return { fields: rest, password, ...taken };
}

/** Refuses a password in an item of a bulk create: each one would cost a slow hash. */
export function refusePasswordInBulk(collection: Pick<Collection, 'account'>, item: unknown, index: number): void {
  if (!collection.account || item === null || typeof item !== 'object' || !Object.hasOwn(item, PASSWORD_FIELD)) {
    return;
  }
  throw new Refusal('invalid-record', 'Accounts with passwords are created one at a time, not in an array.', {
    errors: [{ pointer: `/${index}/${PASSWORD_FIELD}`, message: 'cannot be set in a bulk create' }],
  });
}
