/**
 * What the OpenAPI document says of a collection's operations beyond what Fastify
 * validates: summaries, request headers, bodies, and every response, success and error.
 * The record schemas they name are the collection's components (./record-components.ts).
 */
import type { FastifySchema } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Collection } from '../../core/collection.js';
import type { ProblemKind } from '../problem.js';
import { componentNames } from './record-components.js';
import {
  componentRef,
  emptyResponse,
  jsonResponse,
  problemResponses,
  RequestHeaders,
  ResponseHeaders,
  requestHeaders,
} from './responses.js';

/**
 * The body types every write takes: JSON, and any structured `+json` type, which the
 * server reads as JSON too (../plugins/json-body.ts). `application/*+json` is a range in
 * the style OpenAPI's media type keys allow, so that a validator does not refuse them.
 */
const JSON_BODIES = ['application/json', 'application/*+json'];

export type OperationName = 'list' | 'read' | 'create' | 'modify' | 'patch' | 'remove' | 'events';

/** The documentation of each operation on `collection`, validated by its schema when it has one. */
export function operationDocs(collection: Collection, maxBulkRecords: number): Record<OperationName, FastifySchema> {
  const { singular, plural, schema } = collection;
  const referenced = collection.referrers.length > 0;
  const names = componentNames(collection);
  const record = componentRef(names.record);
  const tags = [plural];
  // Every operation takes the override header, which may name a method its path does not take.
  const problems = (kinds: readonly ProblemKind[]) => problemResponses([...kinds, 'method-not-allowed']);
  const one = (description: string, headers: Record<string, TSchema> = {}) =>
    jsonResponse(description, record, { ETag: ResponseHeaders.etag, ...headers });
  // What a body can break beyond being JSON: the collection's schema, its unique fields.
  const bodyChecks: ProblemKind[] = [
    'malformed-json',
    'invalid-record',
    'payload-too-large',
    'record-too-large',
    'unsupported-media-type',
    ...(schema ? (['schema-violation'] as const) : []),
    ...(collection.unique.length > 0 ? (['unique-conflict'] as const) : []),
    ...(collection.references.length > 0 ? (['missing-reference'] as const) : []),
  ];
  // An account's password is hashed within caps, a client's own (429) and the server's (503).
  const hashing: ProblemKind[] = collection.account ? ['too-many-sign-ins', 'overloaded'] : [];
  const change = (summary: string, operationId: string): FastifySchema => ({
    tags,
    summary,
    operationId,
    description:
      'The body is applied as a JSON Merge Patch (RFC 7396): present fields replace, null removes a field, ' +
      'absent fields stay, nested objects merge. The merge is atomic in the database' +
      (schema ? ", and the record as changed must pass the collection's schema." : '.'),
    consumes: [...JSON_BODIES, 'application/merge-patch+json'],
    headers: requestHeaders({ 'If-Match': RequestHeaders.ifMatch }),
    body: componentRef(names.patch),
    response: {
      200: one(`The ${singular} after the change.`),
      ...problems([...bodyChecks, 'not-found', 'precondition-failed', ...hashing, 'service-unavailable']),
    },
  });

  return {
    list: {
      tags,
      summary: `List ${plural}`,
      operationId: `list${names.record}s`,
      description: `${collection.description} A page of records; follow Link rel="next" for the next one.`,
      headers: requestHeaders({ Prefer: RequestHeaders.preferCount }),
      response: {
        200: jsonResponse(
          `A page of ${plural} (an empty array past the last page); with fields=, each cut down to those fields.`,
          Type.Array(Type.Union([record, componentRef(names.projection)])),
          {
            Link: ResponseHeaders.link,
            'X-Total-Count': ResponseHeaders.totalCount,
          },
        ),
        ...problems(['invalid-query', 'service-unavailable']),
      },
    },
    read: {
      tags,
      summary: `Read one ${singular}`,
      operationId: `read${names.record}`,
      headers: requestHeaders({ 'If-None-Match': RequestHeaders.ifNoneMatch }),
      response: {
        200: one(`The ${singular}.`),
        304: emptyResponse('Not modified: the ETag in If-None-Match still matches.', { ETag: ResponseHeaders.etag }),
        ...problems(['invalid-query', 'not-found', 'service-unavailable']),
      },
    },
    create: {
      tags,
      summary: `Create a ${singular}`,
      operationId: `create${names.record}`,
      description:
        'id, createdAt and updatedAt are set by the server and ignored when sent. With an Idempotency-Key, ' +
        'a retry gets the first answer again instead of a second record. A JSON array of records creates ' +
        `all of them in one transaction or none (at most ${maxBulkRecords}): the answer is the array of ` +
        "records, each with its id; a refusal's error pointers start with the item's index.",
      headers: requestHeaders({ 'Idempotency-Key': RequestHeaders.idempotencyKey }),
      consumes: JSON_BODIES,
      body: Type.Union([
        componentRef(names.fields),
        Type.Array(componentRef(names.fields), { minItems: 1, maxItems: maxBulkRecords }),
      ]),
      response: {
        201: jsonResponse(
          `The created ${singular}, or for an array the created ${plural}.`,
          Type.Union([record, Type.Array(record)]),
          {
            ETag: ResponseHeaders.etag,
            Location: ResponseHeaders.location,
            'Idempotent-Replayed': ResponseHeaders.replayed,
          },
        ),
        ...problems([
          ...bodyChecks,
          'invalid-idempotency-key',
          'idempotency-key-in-use',
          'idempotency-key-reused',
          'idempotent-record-gone',
          'ids-exhausted',
          'too-many-records',
          ...hashing,
          'service-unavailable',
        ]),
      },
    },
    events: {
      tags,
      summary: `Follow changes to ${plural}`,
      operationId: `follow${names.record}Changes`,
      description:
        'Server-sent events, one per committed change: `created`, `updated` or `deleted`, whose data is the ' +
        "record (as it was, for a delete) and whose id is the change's number in this collection (1, 2, 3…, in " +
        'commit order). Send the last id seen as Last-Event-ID (or `since`) to resume with nothing missed and ' +
        'nothing doubled; past what the log keeps, a `reset` event comes first. The filters of the list apply. ' +
        'Comments keep a quiet feed open.',
      headers: requestHeaders({
        // Optional, as every request header: a feed without it starts at the next change.
        'Last-Event-ID': Type.Optional(Type.String({ description: 'Resume after the change with this id.' })),
      }),
      response: {
        200: {
          description: 'The stream of events (text/event-stream); it stays open.',
          content: { 'text/event-stream': { schema: Type.String() } },
        },
        ...problems(['invalid-query', 'service-unavailable']),
      },
    },
    modify: change(`Modify a ${singular}`, `modify${names.record}`),
    patch: change(`Modify a ${singular} (PATCH, same as PUT)`, `patch${names.record}`),
    remove: {
      tags,
      summary: `Delete a ${singular}`,
      operationId: `delete${names.record}`,
      headers: requestHeaders({ 'If-Match': RequestHeaders.ifMatch, Prefer: RequestHeaders.preferMinimal }),
      response: {
        200: one(`The ${singular} as it was before deletion.`),
        204: emptyResponse('Deleted; no body, as Prefer: return=minimal asked.', {
          'Preference-Applied': ResponseHeaders.preferenceApplied,
        }),
        ...problems([
          'not-found',
          'precondition-failed',
          ...(referenced ? (['record-referenced'] as const) : []),
          'service-unavailable',
        ]),
      },
    },
  };
}
