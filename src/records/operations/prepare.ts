/**
 * A write readied into what the store runs, the same for a request alone and for an
 * operation of a batch: a create's record text (owner field, `create` rule, schema, indexed
 * values, size), a change's and a delete's conditions (`If-Match`, rules on the record as it
 * is, schema and size as the change leaves it). A new check on a write goes here, once.
 */
import { isObject } from '../../core/is-object.js';
import { withoutSystemFields } from '../../core/system-fields.js';
import type { NewMail } from '../../store/mail-model.js';
import {
  type AccountWrite,
  RecordTooLargeError,
  type RemoveConditions,
  type WriteConditions,
} from '../../store/store.js';
import { bulkRecords } from '../bulk-create.js';
import { ifMatchVersions } from '../conditional.js';
import { createdFiles, filesResolver, type Upload } from '../files/file-values.js';
import type { Holder } from '../in-flight-gate.js';
import type { Caller } from '../rules/record-access.js';
import type { RecordKit } from './record-kit.js';

type Fields = Record<string, unknown>;

/** What a body asks to write: its fields without system fields or the password, and the password, checked, if sent. */
export function sentFields(kit: RecordKit, body: Fields): ReturnType<RecordKit['password']> {
  return kit.password(withoutSystemFields(body));
}

/** An account's change as it applies now: the fields written, and the mail it queues. */
export interface AccountChange {
  readonly fields: Fields;
  readonly mail?: readonly NewMail[];
}

/**
 * What a change of account `id` by `caller` writes now, when the caller has no key
 * (src/records/accounts/flows/account-change.ts): a new password only with the current
 * one, a new email address only once confirmed. A key's change, or a record's, is as sent.
 */
export async function readyAccountChange(
  kit: RecordKit,
  caller: Caller,
  id: number,
  taken: ReturnType<RecordKit['password']>,
  holder: Holder,
): Promise<AccountChange> {
  const changes = kit.accountChanges;
  if (!changes || 'kind' in caller) return { fields: taken.fields };
  if (taken.password !== undefined) await changes.currentPassword(id, taken.currentPassword, holder);
  const { patch, mail } = await changes.emailChange(id, taken.fields, (record) => kit.access.canView(caller, record));
  return { fields: patch, ...(mail && { mail }) };
}

/**
 * A create's record as the store writes it, for `caller`: its file fields set from its
 * `uploads`, the owner field set, the `create` rule, the schema and the indexed values
 * checked, then its size. `sized` hears its bytes before the size is checked (a batch counts
 * them against its own budget first).
 */
export function readyCreate(
  kit: RecordKit,
  caller: Caller,
  fields: Fields,
  { sized, uploads = [] }: { sized?: (bytes: number) => void; uploads?: readonly Upload[] } = {},
): string {
  const ready = kit.access.create(caller, createdFiles(kit.collection.files, fields, uploads));
  kit.checks.sent(ready);
  const data = JSON.stringify(ready);
  const bytes = Buffer.byteLength(data);
  sized?.(bytes);
  if (bytes > kit.limits.maxRecordBytes) throw new RecordTooLargeError(bytes, kit.limits.maxRecordBytes);
  return data;
}

/** What a create writes beside an account's record: its password's hash and its sign-up's mail (../accounts, kit.signUpMail). */
export function accountWrite(
  secret: string | undefined,
  mail: readonly NewMail[] | undefined,
): AccountWrite | undefined {
  if (secret === undefined && mail === undefined) return undefined;
  return { ...(secret !== undefined && { secret }), ...(mail && { mail }) };
}

/**
 * A bulk create's records as the store writes them, for `caller`: no item may carry a
 * password (each would cost a hash), each object gets its owner field and meets the
 * `create` rule, then every item is checked as a bulk create checks them (src/records/bulk-create.ts).
 */
export function readyBulk(kit: RecordKit, caller: Caller, items: readonly unknown[]): string[] {
  const ready = items.map((item, index) => {
    const fields = kit.passwordless(item, index);
    return isObject(fields) ? kit.access.create(caller, createdFiles(kit.collection.files, fields, [])) : fields;
  });
  return bulkRecords(ready, kit.bulk);
}

/**
 * What a change of record `id` by `patch` (as sent: the rules read all of it) is checked
 * against in its transaction; `secret` is a new password's hash, `mail` what an account's
 * change queues with it, `uploads` the files sent with it (its file fields are resolved
 * against the record as it is, under the lock).
 */
export function mergeConditions(
  kit: RecordKit,
  caller: Caller,
  id: number,
  {
    ifMatch,
    patch,
    secret,
    mail,
    uploads = [],
  }: {
    ifMatch: string | undefined;
    patch: Fields;
    secret?: string | undefined;
    mail?: readonly NewMail[] | undefined;
    uploads?: readonly Upload[];
  },
): WriteConditions {
  const resolve = filesResolver(kit.collection.files, patch, uploads);
  return {
    ifVersion: ifMatchVersions(ifMatch, id),
    check: kit.checks.merged,
    maxBytes: kit.limits.maxRecordBytes,
    ...kit.access.guard(caller, 'update', patch),
    ...(secret !== undefined && { secret }),
    ...(mail !== undefined && { mail }),
    ...(resolve && { resolve }),
  };
}

/** What a delete of record `id` is checked against in its transaction. */
export function removeConditions(
  kit: RecordKit,
  caller: Caller,
  id: number,
  ifMatch: string | undefined,
): RemoveConditions {
  return { ifVersion: ifMatchVersions(ifMatch, id), ...kit.access.guard(caller, 'delete') };
}
