/**
 * A collection's creates in the document: one record at the singular path, an array of them
 * at the plural one. The server takes either body at either path, but OpenAPI gives one
 * operation one set of answers: documented apart, a generated client's single create returns
 * a record and its bulk create an array, rather than both returning "a record or an array".
 */
import type { FastifySchema } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { withArticle } from '../../core/articles.js';
import type { Collection } from '../../core/collection.js';
import type { ProblemKind } from '../problem-types.js';
import { componentNames } from './record-components.js';
import {
  componentRef,
  jsonResponse,
  RequestHeaders,
  ResponseHeaders,
  type ResponseSchema,
  requestHeaders,
} from './responses.js';

/** The body types every write takes (./operations.ts). */
const JSON_BODIES = ['application/json', 'application/*+json'];

/** What the creates share with the collection's other operations (./operations.ts). */
export interface CreateParts {
  tags: string[];
  /** What a body can break beyond being JSON, for this collection. */
  bodyChecks: readonly ProblemKind[];
  /** The refusals of hashing an account's password, where the collection holds accounts. */
  hashing: readonly ProblemKind[];
  problems: (kinds: readonly ProblemKind[]) => Record<number, ResponseSchema>;
}

/** The problems a create ends in besides its body's. */
const CREATE_PROBLEMS: readonly ProblemKind[] = [
  'invalid-idempotency-key',
  'idempotency-key-in-use',
  'idempotency-key-reused',
  'idempotent-record-gone',
  'ids-exhausted',
];

export function createDocs(
  collection: Collection,
  maxBulkRecords: number,
  { tags, bodyChecks, hashing, problems }: CreateParts,
): { create: FastifySchema; bulkCreate: FastifySchema } {
  const { singular, plural } = collection;
  const names = componentNames(collection);
  const record = componentRef(names.record);
  // A sign-up that must send its verification mail is refused where mail cannot go out.
  const mail: ProblemKind[] = collection.account?.verify ? ['mail-unavailable'] : [];
  const refusals = (more: readonly ProblemKind[]) =>
    problems([...bodyChecks, ...CREATE_PROBLEMS, ...more, ...hashing, ...mail, 'service-unavailable']);
  const shared = {
    tags,
    headers: requestHeaders({ 'Idempotency-Key': RequestHeaders.idempotencyKey }),
    consumes: JSON_BODIES,
  };
  const replayed = { 'Idempotent-Replayed': ResponseHeaders.replayed };
  return {
    create: {
      ...shared,
      summary: `Create ${withArticle(singular)}`,
      operationId: `create${names.record}`,
      description:
        'id, createdAt and updatedAt are set by the server and ignored when sent. With an Idempotency-Key, ' +
        `a retry gets the first answer again instead of a second record. To create several at once, POST ` +
        `an array to /${plural}/ (${bulkName(names.record)}); this path takes an array too, with the same answer.`,
      body: componentRef(names.fields),
      response: {
        201: jsonResponse(`The created ${singular}.`, record, {
          ETag: ResponseHeaders.etag,
          Location: ResponseHeaders.location,
          ...replayed,
        }),
        ...refusals([]),
      },
    },
    bulkCreate: {
      ...shared,
      summary: `Create several ${plural} at once`,
      operationId: bulkName(names.record),
      description:
        `All of them in one transaction, or none (at most ${maxBulkRecords}): the answer is the array of ` +
        "records in the order sent, each with its id; a refusal's error pointers start with the item's index. " +
        'With an Idempotency-Key, a retry gets the same array again. This path also takes a single record, ' +
        `answered as create${names.record} (/${singular}/).`,
      body: Type.Array(componentRef(names.fields), { minItems: 1, maxItems: maxBulkRecords }) as TSchema,
      response: {
        201: jsonResponse(`The created ${plural}, in the order sent.`, Type.Array(record), replayed),
        ...refusals(['too-many-records']),
      },
    },
  };
}

/** The operationId of a bulk create: bulkCreateProducts. */
const bulkName = (record: string) => `bulkCreate${record}s`;
