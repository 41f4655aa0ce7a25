/**
 * A request's write, from its body to the store: readied by ./prepare.ts (a password hashed
 * within its holder's share), written under its `Idempotency-Key` if it sent one, and a
 * record that is not there, or that the caller may not see, answered as missing (404). A
 * batch runs the same readied writes as the steps of one transaction (../batch/batch-steps.ts).
 */
import type { StoredRecord } from '../../store/store.js';
import { createAll } from '../bulk-create.js';
import type { StagedFile } from '../files/staging.js';
import { uploadsFingerprint, withStoredUploads } from '../files/stored-uploads.js';
import type { Holder } from '../in-flight-gate.js';
import type { Caller } from '../rules/record-access.js';
import { type IdempotentResult, idempotently, type RequestKey } from './idempotent-write.js';
import {
  accountWrite,
  mergeConditions,
  readyAccountChange,
  readyBulk,
  readyCreate,
  removeConditions,
  sentFields,
} from './prepare.js';
import type { RecordKit } from './record-kit.js';

type Fields = Record<string, unknown>;

/** Who writes: the caller its rules read, and the holder whose share of hashing a password spends. */
export interface WriteCaller {
  readonly caller: Caller;
  readonly holder: Holder;
}

export interface CreateInput extends WriteCaller {
  /** The method the request was sent with (a retry under the same key must be sent so too). */
  readonly method: string;
  /** One record's fields, or many records (a bulk create: all or none, no password). */
  readonly body: Fields | readonly unknown[];
  readonly key: RequestKey;
  /** The files sent with it (a multipart create), staged and checked. */
  readonly uploads?: readonly StagedFile[];
}

/** A create: the record or records written, or the first request's under the same key, replayed. */
export async function createRecord(
  kit: RecordKit,
  input: CreateInput,
): Promise<IdempotentResult<StoredRecord | StoredRecord[]>> {
  const { caller, body } = input;
  if (Array.isArray(body)) {
    const texts = readyBulk(kit, caller, body);
    // Once the records are found fit: a sign-up that cannot send its mail writes nothing.
    const mail = kit.signUpMail();
    const what = () => ({ method: input.method, path: kit.paths.create, body: `[${texts.join(',')}]` });
    const accounts = mail && texts.map(() => accountWrite(undefined, mail));
    return queueing(kit, mail, () =>
      idempotently({ ...input.key, what }, (claim) =>
        createAll(texts, kit.bulk, () => kit.records.createMany(texts, claim, accounts)),
      ),
    );
  }
  const { fields, password } = sentFields(kit, body as Fields);
  const uploads = input.uploads ?? [];
  const data = readyCreate(kit, caller, fields, { uploads });
  // Once the record is found fit, before its password's hash: a sign-up that cannot send its mail writes nothing.
  const mail = kit.signUpMail();
  const secret = password === undefined ? undefined : await kit.hash(password, input.holder);
  const account = accountWrite(secret, mail);
  const what = () => ({
    method: input.method,
    path: kit.paths.create,
    body: uploadsFingerprint(data, uploads),
    ...(password !== undefined && { password }),
  });
  return queueing(kit, mail, () =>
    idempotently({ ...input.key, what }, (claim) =>
      withStoredUploads(kit.files?.storage, kit.collection.plural, uploads, () =>
        kit.records.create(data, claim, account),
      ),
    ),
  );
}

/** Runs a write that may queue `mail`, and wakes the outbox's sender once it is committed. */
async function queueing<T>(kit: RecordKit, mail: unknown, write: () => Promise<T>): Promise<T> {
  const done = await write();
  if (mail !== undefined) kit.mailQueued();
  return done;
}

/**
 * Record `id` changed by `body` (a JSON Merge Patch, a new password hashed, files uploaded
 * with it put) under its conditions; an account's change by a caller without a key as
 * ./prepare.ts's `readyAccountChange` leaves it (the rules still read the whole body).
 */
export async function changeRecord(
  kit: RecordKit,
  { caller, holder }: WriteCaller,
  id: number,
  {
    ifMatch,
    body,
    uploads = [],
  }: { ifMatch: string | undefined; body: Fields; uploads?: readonly StagedFile[] | undefined },
): Promise<StoredRecord> {
  const taken = sentFields(kit, body);
  const { fields: patch, mail } = await readyAccountChange(kit, caller, id, taken, holder);
  const { password } = taken;
  const secret = password === undefined ? undefined : await kit.hash(password, holder);
  const conditions = mergeConditions(kit, caller, id, { ifMatch, patch: taken.fields, secret, mail, uploads });
  // Parsed already: the store merges the object, without writing and reading it again.
  // A record that is not there fails the write, so that the files put for it are taken out.
  const record = await withStoredUploads(kit.files?.storage, kit.collection.plural, uploads, async () => {
    const merged = await kit.records.merge(id, patch, conditions);
    if (!merged) throw kit.notFound(id);
    return merged;
  });
  if (mail) kit.mailQueued();
  return record;
}

/** Record `id` deleted for `caller`, under its conditions; the record as it was. */
export async function removeRecord(
  kit: RecordKit,
  caller: Caller,
  id: number,
  ifMatch: string | undefined,
): Promise<StoredRecord> {
  const record = await kit.records.remove(id, removeConditions(kit, caller, id, ifMatch));
  if (!record) throw kit.notFound(id);
  return record;
}
