/**
 * What every operation of one collection's routes shares: its records, paths and write kit
 * (src/records/operations/: its access rules and checks, made once per collection from the
 * catalog), made once per collection by ../collection-routes.ts.
 */
import type { FastifyRequest } from 'fastify';
import { type Collection, collectionPaths } from '../../../../core/collection.js';
import type { BulkCreateOptions } from '../../../../records/bulk-create.js';
import type { WriteKit } from '../../../../records/operations/index.js';
import { type QueryFields, queryFieldsOf } from '../../../../records/query-fields.js';
import type { RecordAccess } from '../../../../records/rules/record-access.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import type { IdParams } from '../request-shapes.js';
import type { CollectionRoutesOptions } from '../routes-options.js';

export interface OperationContext {
  readonly collection: Collection;
  readonly options: CollectionRoutesOptions;
  readonly paths: ReturnType<typeof collectionPaths>;
  readonly referenceNames: readonly string[];
  /** What its writes are readied with, a batch's operations on it included. */
  readonly kit: WriteKit;
  /** The field names its lists and feeds may filter, sort and project by. */
  readonly queryFields: QueryFields;
  readonly bulk: BulkCreateOptions;
  readonly access: RecordAccess;
  /** The record id of an item path; anything but a positive integer names no record (404). */
  idOf(request: FastifyRequest): number;
  notFound(id: string | number): Error;
  /** The hash of a password, made within the caps on hashing. */
  hash(request: FastifyRequest, password: string): Promise<string>;
}

export function operationContext(collection: Collection, options: CollectionRoutesOptions): OperationContext {
  const { kit } = options;
  const missing = kit.notFound;
  return {
    collection,
    options,
    paths: collectionPaths(collection),
    referenceNames: collection.references.map((reference) => reference.name),
    kit,
    queryFields: queryFieldsOf(collection),
    bulk: {
      records: options.records,
      ...(collection.schema && { schema: collection.schema }),
      maxRecordBytes: kit.maxRecordBytes,
      maxRecords: options.maxBulkRecords,
      indexed: kit.indexed,
    },
    access: kit.access,
    idOf(request) {
      const raw = (request.params as IdParams).id;
      const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : 0;
      if (!Number.isSafeInteger(id) || id < 1) throw missing(raw);
      return id;
    },
    notFound: missing,
    hash(request, password) {
      if (!options.hasher) throw new Error(`${collection.plural} holds no accounts: it hashes no passwords`);
      return options.hasher.hash(password, holderOf(request));
    },
  };
}
