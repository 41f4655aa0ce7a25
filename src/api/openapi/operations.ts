/**
 * What the OpenAPI document says of a collection's operations beyond what Fastify
 * validates: summaries, request headers, bodies, and every response, success and error.
 * The record schemas they name are the collection's components (./record-components.ts).
 */
import type { FastifySchema } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { withArticle } from '../../core/articles.js';
import type { Collection } from '../../core/collection.js';
import type { ProblemKind } from '../problem-types.js';
import { createDocs } from './create-operations.js';
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
import { UPLOAD_PROBLEMS } from './upload-bodies.js';

/**
 * The body types every write takes: JSON, and any structured `+json` type, which the
 * server reads as JSON too (src/http/plugins/json-body.ts). `application/*+json` is a range in
 * the style OpenAPI's media type keys allow, so that a validator does not refuse them.
 */
const JSON_BODIES = ['application/json', 'application/*+json'];

/**
 * The id in an item path, as the server reads it: a positive integer up to 2^53 - 1, in
 * decimal. Fastify takes it as text (src/http/routes/records/request-shapes.ts) so that any other
 * text names no record (404) rather than being malformed (400); the document types it an
 * integer, which generated clients and validating proxies then check before sending.
 */
const IdPath = Type.Object({
  id: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description:
      'The record id: a positive integer, written in decimal without a sign or leading zeros ' +
      '(any other text, such as 007, names no record: 404).',
    examples: [1],
  }),
});

export type OperationName = 'list' | 'read' | 'create' | 'bulkCreate' | 'modify' | 'patch' | 'remove' | 'events';

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
    ...(collection.files.length > 0 ? UPLOAD_PROBLEMS : []),
  ];
  // An account's password is hashed within caps, a client's own (429) and the server's (503).
  const hashing: ProblemKind[] = collection.account ? ['too-many-sign-ins', 'overloaded'] : [];
  const change = (summary: string, operationId: string): FastifySchema => ({
    tags,
    summary,
    operationId,
    params: IdPath,
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
      params: IdPath,
      operationId: `read${names.record}`,
      headers: requestHeaders({ 'If-None-Match': RequestHeaders.ifNoneMatch }),
      response: {
        200: one(`The ${singular}.`),
        304: emptyResponse('Not modified: the ETag in If-None-Match still matches.', { ETag: ResponseHeaders.etag }),
        ...problems(['invalid-query', 'not-found', 'service-unavailable']),
      },
    },
    ...createDocs(collection, maxBulkRecords, { tags, bodyChecks, hashing, problems }),
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
    modify: change(`Modify ${withArticle(singular)}`, `modify${names.record}`),
    patch: change(`Modify ${withArticle(singular)} (PATCH, same as PUT)`, `patch${names.record}`),
    remove: {
      tags,
      summary: `Delete ${withArticle(singular)}`,
      description:
        `Deletes the ${singular} and answers it as it was (204 and no body with Prefer: return=minimal). ` +
        'With If-Match, only while its ETag still matches (412 and nothing deleted otherwise). Its id is never ' +
        'handed out again.',
      params: IdPath,
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
