/**
 * The batch in the document: `POST /batch/`, its body an array of operations on the
 * catalog's collections, its answer each operation's status, headers and record. The
 * record is any collection's, so its schema is the union of their components.
 */
import type { FastifySchema } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Catalog } from '../../core/catalog.js';
import type { ProblemKind } from '../problem-types.js';
import { componentNames } from './record-components.js';
import {
  componentRef,
  jsonResponse,
  problemResponses,
  RequestHeaders,
  ResponseHeaders,
  requestHeaders,
} from './responses.js';

/** What a batch can end in: any of its operations' refusals, and its own. */
const BATCH_PROBLEMS: readonly ProblemKind[] = [
  'invalid-batch',
  'too-many-operations',
  'batch-too-large',
  'payload-too-large',
  'malformed-json',
  'unsupported-media-type',
  'not-found',
  'method-not-allowed',
  'precondition-failed',
  'schema-violation',
  'missing-reference',
  'unique-conflict',
  'record-referenced',
  'record-too-large',
  'indexed-value-too-large',
  'invalid-idempotency-key',
  'idempotency-key-in-use',
  'idempotency-key-reused',
  'ids-exhausted',
  'query-timeout',
  'service-unavailable',
];

export function batchDocs(catalog: Catalog, maxOperations: number): FastifySchema {
  const records = catalog.collections.map((collection) => componentRef(componentNames(collection).record));
  const anyOf = (schemas: TSchema[]) => (schemas.length === 1 ? (schemas[0] as TSchema) : Type.Union(schemas));
  const operation = Type.Object(
    {
      method: Type.Union([
        Type.Literal('GET'),
        Type.Literal('POST'),
        Type.Literal('PUT'),
        Type.Literal('PATCH'),
        Type.Literal('DELETE'),
      ]),
      path: Type.String({
        description: 'A create path (/user/) or a record path (/user/7/, or /user/$0.id/ for an earlier result).',
        examples: ['/user/'],
      }),
      // Any object: a create's record or a change's patch (./create-operations.ts), of the
      // collection the path names, whose values may be references to earlier results.
      body: Type.Optional(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              "The record to create (as the collection's create takes it), or the change to merge. A value " +
              '"$0.id" is field id of operation 0\'s record.',
          },
        ),
      ),
      ifMatch: Type.Optional(Type.String({ description: 'The ETag the record must still have (If-Match).' })),
    },
    { additionalProperties: false },
  );
  const result = Type.Object({
    status: Type.Integer({ description: 'The status the operation alone would have had: 201 for a create, else 200.' }),
    headers: Type.Object({
      etag: Type.Optional(ResponseHeaders.etag),
      location: Type.Optional(ResponseHeaders.location),
    }),
    body: anyOf(records),
  });
  return {
    tags: ['batch'],
    summary: 'Run several operations in one transaction',
    operationId: 'batch',
    description:
      `Up to ${maxOperations} operations on any collections, run in order in one transaction: all of them are ` +
      'kept, or none. A later operation may use an earlier one\'s result: "$0.id" as a body value or in a path ' +
      'stands for field id of operation 0\'s record ("$$0.id" is the text itself). Each operation is checked and ' +
      'authorized exactly as it would be alone. The first that fails ends the batch with its own problem: its ' +
      'status and type, its error pointers under its index (/2/body/price). With an Idempotency-Key, a retry ' +
      'gets the first answer again.',
    headers: requestHeaders({ 'Idempotency-Key': RequestHeaders.idempotencyKey }),
    consumes: ['application/json', 'application/*+json'],
    body: Type.Array(operation, { minItems: 1, maxItems: maxOperations }),
    response: {
      200: jsonResponse("Each operation's result, in order.", Type.Array(result), {
        'Idempotent-Replayed': ResponseHeaders.replayed,
      }),
      ...problemResponses(BATCH_PROBLEMS),
    },
  };
}
