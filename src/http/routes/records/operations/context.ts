/**
 * What every operation of one collection's routes shares: its records, paths, checks and
 * access rules, made once per collection by ../collection-routes.ts.
 */
import type { FastifyRequest } from 'fastify';
import { type Collection, collectionPaths } from '../../../../core/collection.js';
import { refusePasswordInBulk, takePassword } from '../../../../records/accounts/index.js';
import type { BulkCreateOptions, IndexedValues } from '../../../../records/bulk-create.js';
import { type QueryFields, queryFieldsOf } from '../../../../records/query-fields.js';
import { type RecordChecks, recordChecks } from '../../../../records/record-checks.js';
import { notFound, RecordAccess } from '../../../../records/rules/record-access.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import type { IdParams } from '../request-shapes.js';
import type { CollectionRoutesOptions } from '../routes-options.js';

export interface OperationContext {
  readonly collection: Collection;
  readonly options: CollectionRoutesOptions;
  readonly paths: ReturnType<typeof collectionPaths>;
  readonly referenceNames: readonly string[];
  readonly checks: RecordChecks;
  /** The field names its lists and feeds may filter, sort and project by. */
  readonly queryFields: QueryFields;
  readonly bulk: BulkCreateOptions;
  readonly access: RecordAccess;
  /** The record id of an item path; anything but a positive integer names no record (404). */
  idOf(request: FastifyRequest): number;
  notFound(id: string | number): Error;
  /** A create's or change's fields without the password, and the password, checked, if sent. */
  password(fields: Record<string, unknown>): { fields: Record<string, unknown>; password?: string };
  /** An item of a bulk create, refused if it carries a password. */
  passwordless(item: unknown, index: number): unknown;
  /** The hash of a password, made within the caps on hashing. */
  hash(request: FastifyRequest, password: string): Promise<string>;
}

export function operationContext(collection: Collection, options: CollectionRoutesOptions): OperationContext {
  const indexed: IndexedValues = {
    paths: [...collection.indexes, ...collection.unique].map((field) => field.path),
    maxBytes: options.maxIndexedValueBytes,
  };
  const missing = (id: string | number) => notFound(collection.singular, id);
  return {
    collection,
    options,
    paths: collectionPaths(collection),
    referenceNames: collection.references.map((reference) => reference.name),
    checks: recordChecks(collection, indexed),
    queryFields: queryFieldsOf(collection),
    bulk: {
      records: options.records,
      ...(collection.schema && { schema: collection.schema }),
      maxRecordBytes: options.maxRecordBytes,
      maxRecords: options.maxBulkRecords,
      indexed,
    },
    access: new RecordAccess(collection),
    idOf(request) {
      const raw = (request.params as IdParams).id;
      const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : 0;
      if (!Number.isSafeInteger(id) || id < 1) throw missing(raw);
      return id;
    },
    notFound: missing,
    password: (fields) => takePassword(collection, fields),
    passwordless(item, index) {
      refusePasswordInBulk(collection, item, index);
      return item;
    },
    hash(request, password) {
      if (!options.hasher) throw new Error(`${collection.plural} holds no accounts: it hashes no passwords`);
      return options.hasher.hash(password, holderOf(request));
    },
  };
}
