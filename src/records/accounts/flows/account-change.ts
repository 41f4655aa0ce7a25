/**
 * What a change of an account's record asks beyond a record's change, when it comes from a
 * caller without a key (the account itself, or anyone its rules let change it); a write key
 * is a service's credential and changes both directly:
 * - a new `password` needs the current one, `currentPassword`, checked against the stored
 *   hash (a decoy's when there is none, so that the time says nothing); it is never stored;
 * - on a collection with `verify: "email"`, a new email address does not apply: it is taken
 *   out of the patch (the rest applies), and the change queues, in its own transaction, a
 *   confirmation to the new address and a notice to the old one. The confirmation's token
 *   applies it (./email-change.ts), so no one with a stolen session alone can move an
 *   account to an address they hold, and the owner hears of it.
 */
import type { Collection } from '../../../core/collection.js';
import type { NewMail } from '../../../store/mail-model.js';
import { mergedFields } from '../../../store/merge-patch.js';
import type { Records, StoredRecord } from '../../../store/store.js';
import type { Holder } from '../../in-flight-gate.js';
import { Refusal } from '../../refusal.js';
import type { PasswordHasher } from '../password-hasher.js';
import { emailFieldOf } from './flow-tokens.js';

type Fields = Record<string, unknown>;

/** The body field a password change carries the current password in; never stored. */
export const CURRENT_PASSWORD_FIELD = 'currentPassword';

export interface AccountChanges {
  /** Refuses unless `given` is account `id`'s password now; one refusal, missing or wrong, whether the account exists or not. */
  currentPassword(id: number, given: unknown, holder: Holder): Promise<void>;
  /**
   * The patch as it applies now, and the mail it queues: a new email address taken out, to be
   * confirmed. `visible` says whether the caller may see the account: one it may not is left
   * to the write, which answers it as missing, so that nothing here tells it exists.
   */
  emailChange(
    id: number,
    patch: Fields,
    visible: (record: StoredRecord) => boolean,
  ): Promise<{ patch: Fields; mail?: NewMail[] }>;
}

export interface AccountChangeOptions {
  readonly records: Pick<Records, 'get' | 'secretOf'>;
  readonly hasher?: PasswordHasher | undefined;
  /** Whether mail can be sent (SMTP_URL, or MAIL_LOG_LINKS): without it an email change is 503. */
  readonly mailAvailable: boolean;
  /** The check of a record as a change leaves it (schema, indexed values). */
  readonly merged: (data: string) => void;
  readonly maxRecordBytes: number;
}

export function wrongCurrentPassword(): Refusal {
  return new Refusal(
    'invalid-current-password',
    `A new password needs the current one as "${CURRENT_PASSWORD_FIELD}", and it was missing or wrong.`,
    { errors: [{ pointer: `/${CURRENT_PASSWORD_FIELD}`, message: 'is missing or is not the current password' }] },
  );
}

export function accountChanges(collection: Collection, options: AccountChangeOptions): AccountChanges {
  const { records, hasher } = options;
  const emailField = collection.account?.verify === 'email' ? emailFieldOf(collection) : undefined;
  return {
    async currentPassword(id, given, holder) {
      if (typeof given !== 'string' || given === '') throw wrongCurrentPassword();
      if (!hasher) throw new Error(`${collection.plural} holds no accounts: it checks no passwords`);
      if (!(await hasher.matches(given, await records.secretOf(id), holder))) throw wrongCurrentPassword();
    },
    async emailChange(id, patch, visible) {
      const name = emailField?.path.join('.');
      const address = name === undefined ? undefined : patch[name];
      if (name === undefined || typeof address !== 'string') return { patch };
      // Read before the write, outside it: a record gone or hidden by then is the write's 404.
      const current = await records.get(id);
      if (!current || !visible(current)) return { patch };
      const old = (JSON.parse(current.data) as Fields)[name];
      const same = emailField?.ignoreCase ? String(old).toLowerCase() === address.toLowerCase() : old === address;
      if (typeof old !== 'string' || same) return { patch };
      // The new address must be one the record could hold, or no mail is sent for it.
      options.merged(mergedFields(current.data, patch, options.maxRecordBytes));
      if (!options.mailAvailable) {
        throw new Refusal(
          'mail-unavailable',
          'Changing the email address sends a confirmation, and this server sends no mail.',
        );
      }
      const { [name]: _new, ...rest } = patch;
      const mail: NewMail[] = [
        { kind: 'email-change', collection: collection.plural, address },
        { kind: 'email-changed', collection: collection.plural, address: old },
      ];
      return { patch: rest, mail };
    },
  };
}
