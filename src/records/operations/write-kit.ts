/**
 * What every write on one collection is readied with, made once per collection from the
 * catalog: its access rules (one {@link RecordAccess}), the policy its rules set on each
 * operation, its checks and its limits. A request alone and each operation of a batch are
 * readied with the same kit by the same functions (./prepare.ts).
 */
import type { Collection } from '../../core/collection.js';
import type { RuleOperation } from '../../core/rules/rule-tree.js';
import { refusePasswordInBulk, takePassword } from '../accounts/index.js';
import type { IndexedValues } from '../bulk-create.js';
import { type RecordChecks, recordChecks } from '../record-checks.js';
import type { Refusal } from '../refusal.js';
import { notFound, RecordAccess } from '../rules/record-access.js';

/** Where the collection has rules, whether its rule decides an operation for a caller without a key (`apply`) or a key is needed (`keys`); nothing where it has none. */
export type RulePolicy = { readonly rules?: 'apply' | 'keys' };

export interface WriteLimits {
  /** Largest record, its fields as compact JSON in bytes, that a create or change may leave. */
  readonly maxRecordBytes: number;
  /** The most bytes a value of an indexed or unique field may hold. */
  readonly maxIndexedValueBytes: number;
}

export interface WriteKit {
  readonly collection: Collection;
  readonly access: RecordAccess;
  readonly checks: RecordChecks;
  readonly indexed: IndexedValues;
  readonly maxRecordBytes: number;
  /** The policy the collection's rules set on `operation`, for the caller to be authorized by. */
  policy(operation: RuleOperation): RulePolicy;
  /** The problem for a record that is not there, or that the caller may not see. */
  notFound(id: string | number): Refusal;
  /** A create's or change's fields without the password, and the password, checked, if sent. */
  password(fields: Record<string, unknown>): { fields: Record<string, unknown>; password?: string };
  /** An item of a bulk create, refused if it carries a password. */
  passwordless(item: unknown, index: number): unknown;
}

export function writeKit(collection: Collection, limits: WriteLimits): WriteKit {
  const indexed: IndexedValues = {
    paths: [...collection.indexes, ...collection.unique].map((field) => field.path),
    maxBytes: limits.maxIndexedValueBytes,
  };
  const ruled = Object.keys(collection.rules).length > 0;
  return {
    collection,
    access: new RecordAccess(collection),
    checks: recordChecks(collection, indexed),
    indexed,
    maxRecordBytes: limits.maxRecordBytes,
    policy: (operation) => (ruled ? { rules: collection.rules[operation] ? 'apply' : 'keys' } : {}),
    notFound: (id) => notFound(collection.singular, id),
    password: (fields) => takePassword(collection, fields),
    passwordless(item, index) {
      refusePasswordInBulk(collection, item, index);
      return item;
    },
  };
}
