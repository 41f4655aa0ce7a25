/**
 * What every operation on one collection's records is readied with, made once per
 * collection from the catalog: its records in the store, its access rules (one
 * {@link RecordAccess}, which also says the policy its rules set on each operation), its
 * checks, its limits and the names a request may use (its query fields, its references).
 * A request alone and each operation of a batch are readied with the same kit by the same
 * functions (./prepare.ts, ./reads.ts, ../batch/batch-steps.ts).
 */
import type { Config } from '../../config/index.js';
import type { Catalog } from '../../core/catalog.js';
import { type Collection, collectionPaths } from '../../core/collection.js';
import type { NewMail } from '../../store/mail-model.js';
import type { Records, Store } from '../../store/store.js';
import {
  type AccountChanges,
  accountChanges,
  type PasswordHasher,
  refusePasswordInBulk,
  takePassword,
} from '../accounts/index.js';
import type { BulkCreateOptions, IndexedValues } from '../bulk-create.js';
import type { ExpandSource } from '../expand.js';
import type { FileSettings } from '../files/stored-uploads.js';
import type { Holder, InFlightGate } from '../in-flight-gate.js';
import { type QueryFields, queryFieldsOf } from '../query-fields.js';
import { type RecordChecks, recordChecks } from '../record-checks.js';
import { Refusal } from '../refusal.js';
import { type Caller, notFound, RecordAccess } from '../rules/record-access.js';
import { viewableSource } from '../rules/viewable-source.js';

export interface RecordLimits {
  /** Largest record, its fields as compact JSON in bytes, that a create or change may leave. */
  readonly maxRecordBytes: number;
  /** The most bytes a value of an indexed or unique field may hold. */
  readonly maxIndexedValueBytes: number;
  /** The most records one create may send as an array (MAX_BULK_RECORDS). */
  readonly maxBulkRecords: number;
  /** Largest list page, or expanded record, in bytes (MAX_PAGE_BYTES). */
  readonly maxPageBytes: number;
  /** Longest field name a query may name. */
  readonly maxFieldNameLength: number;
}

/** The limits of records as the settings give them. */
export function recordLimitsOf(config: Pick<Config, keyof RecordLimits>): RecordLimits {
  const { maxRecordBytes, maxIndexedValueBytes, maxBulkRecords, maxPageBytes, maxFieldNameLength } = config;
  return { maxRecordBytes, maxIndexedValueBytes, maxBulkRecords, maxPageBytes, maxFieldNameLength };
}

export interface RecordKit {
  readonly collection: Collection;
  /** The collection's records in the store. */
  readonly records: Records;
  readonly paths: ReturnType<typeof collectionPaths>;
  readonly access: RecordAccess;
  readonly checks: RecordChecks;
  readonly indexed: IndexedValues;
  readonly limits: RecordLimits;
  /** How a bulk create checks its items (src/records/bulk-create.ts). */
  readonly bulk: BulkCreateOptions;
  /** The field names its lists and feeds may filter, sort and project by. */
  readonly queryFields: QueryFields;
  /** The names of its references, which `expand=` may name. */
  readonly referenceNames: readonly string[];
  /** The caps on costly list queries running at once, shared by every collection. */
  readonly costlyQueries: InFlightGate;
  /** Where `expand=` finds the records references name, embedding only those `caller` may view. */
  viewable(caller: Caller): ExpandSource;
  /** The problem for a record that is not there, or that the caller may not see. */
  notFound(id: string | number): Refusal;
  /** A create's or change's fields without the password, and the password, checked, if sent (and `currentPassword`). */
  password(fields: Record<string, unknown>): {
    fields: Record<string, unknown>;
    password?: string;
    currentPassword?: unknown;
  };
  /** What an account's change by a caller without a key asks beyond a record's; absent where the collection holds no accounts. */
  readonly accountChanges?: AccountChanges;
  /** An item of a bulk create, refused if it carries a password. */
  passwordless(item: unknown, index: number): unknown;
  /** The hash of a password, made within `holder`'s share of hashing. */
  hash(password: string, holder: Holder): Promise<string>;
  /**
   * The mail a new account of this collection is sent (its verification, when it asks for
   * `verify`), written with it; undefined for none. Refuses with `mail-unavailable` when the
   * mail cannot go out: before anything is written.
   */
  signUpMail(): readonly NewMail[] | undefined;
  /** Mail was queued and committed: the outbox's sender looks now. */
  mailQueued(): void;
  /** Where its files' bytes go, when it has file fields (`x-file`). */
  readonly files?: FileSettings;
}

/** Whether mail can go out, and how the outbox's sender is told that some was queued. */
export interface MailQueue {
  readonly available: boolean;
  /** Mail was queued, due at `dueAt` (now when absent): the sender looks then. */
  queued(dueAt?: number): void;
}

/** What every collection's kit is made from. */
export interface RecordKitOptions {
  readonly store: Pick<Store, 'collection'>;
  readonly limits: RecordLimits;
  readonly costlyQueries: InFlightGate;
  /** Hashes account passwords; absent when no collection holds accounts. */
  readonly hasher?: PasswordHasher | undefined;
  /** Where account mail goes; absent: none can (a sign-up that needs it is refused). */
  readonly mail?: MailQueue | undefined;
  /** Where files go; absent when no collection has file fields. */
  readonly files?: FileSettings | undefined;
}

/** Each collection's kit, made once: its requests, a batch's operations on it and expansions into it share it. */
export function recordKits(
  catalog: Pick<Catalog, 'perCollection'>,
  options: RecordKitOptions,
): (collection: Collection) => RecordKit {
  const accessOf = (collection: Collection): RecordAccess => kitOf(collection).access;
  const viewable = (caller: Caller): ExpandSource => viewableSource(options.store, caller, accessOf);
  const kitOf = catalog.perCollection((collection): RecordKit => recordKit(collection, options, viewable));
  return kitOf;
}

function recordKit(
  collection: Collection,
  { store, limits, costlyQueries, hasher, mail, files }: RecordKitOptions,
  viewable: (caller: Caller) => ExpandSource,
): RecordKit {
  const records = store.collection(collection);
  const indexed: IndexedValues = {
    paths: [...collection.indexes, ...collection.unique].map((field) => field.path),
    maxBytes: limits.maxIndexedValueBytes,
  };
  const access = new RecordAccess(collection);
  const checks = recordChecks(collection, indexed);
  const { maxRecordBytes } = limits;
  const signUpMail: readonly NewMail[] | undefined =
    collection.account?.verify === 'email' ? [{ kind: 'verify', collection: collection.plural }] : undefined;
  return {
    collection,
    records,
    paths: collectionPaths(collection),
    access,
    checks,
    indexed,
    limits,
    bulk: {
      records,
      ...(collection.schema && { schema: collection.schema }),
      maxRecordBytes: limits.maxRecordBytes,
      maxRecords: limits.maxBulkRecords,
      indexed,
    },
    queryFields: queryFieldsOf(collection),
    referenceNames: collection.references.map((reference) => reference.name),
    costlyQueries,
    viewable,
    notFound: (id) => notFound(collection.singular, id),
    password: (fields) => takePassword(collection, fields),
    ...(collection.account && {
      accountChanges: accountChanges(collection, {
        records,
        hasher,
        mailAvailable: mail?.available ?? false,
        merged: checks.merged,
        maxRecordBytes,
      }),
    }),
    passwordless(item, index) {
      refusePasswordInBulk(collection, item, index);
      return item;
    },
    hash(password, holder) {
      if (!hasher) throw new Error(`${collection.plural} holds no accounts: it hashes no passwords`);
      return hasher.hash(password, holder);
    },
    signUpMail() {
      if (signUpMail && !mail?.available) throw mailUnavailable();
      return signUpMail;
    },
    mailQueued: () => mail?.queued(),
    ...(files && collection.files.length > 0 && { files }),
  };
}

/** The refusal of a write that would send mail when none can go out. */
export function mailUnavailable(): Refusal {
  return new Refusal(
    'mail-unavailable',
    'This needs to send mail, and the server has no way to send it (no SMTP_URL); nothing was written.',
  );
}
