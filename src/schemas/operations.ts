/**
 * The route schemas of a collection's operations beyond what they validate: summaries,
 * bodies, request headers and every response, success and error. They feed the OpenAPI
 * document; the record schemas they name come from the resource definition.
 */
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import type { ResourceDefinition } from '../resources.js';
import type { RecordSchemas } from './record.js';
import {
  emptyResponse,
  IfNoneMatchHeader,
  jsonResponse,
  PreferHeader,
  problemResponses,
  ResponseHeaders,
  requestHeaders,
} from './responses.js';

export type OperationName = 'list' | 'read' | 'create' | 'modify' | 'patch' | 'remove';

/** The documented schema of each operation on `resource`. */
export function operationSchemas(
  resource: ResourceDefinition,
  schemas: RecordSchemas,
): Record<OperationName, FastifySchema> {
  const { singular, plural } = resource;
  const Name = schemas.record.$id;
  const record = Type.Ref(schemas.record.$id);
  const tags = [plural];
  const one = (description: string, headers: Record<string, typeof ResponseHeaders.etag> = {}) =>
    jsonResponse(description, record, { ETag: ResponseHeaders.etag, ...headers });
  const changeBody = (summary: string, operationId: string) => ({
    tags,
    summary,
    operationId,
    description:
      'The body is applied as a JSON Merge Patch (RFC 7396): present fields replace, null removes a field, ' +
      'absent fields stay, nested objects merge. The merge is atomic in the database.',
    consumes: ['application/json', 'application/merge-patch+json'],
    headers: requestHeaders(),
    body: Type.Ref(schemas.patch.$id),
    response: {
      200: one(`The ${singular} after the change.`),
      ...problemResponses([
        'malformed-json',
        'invalid-record',
        'not-found',
        'payload-too-large',
        'unsupported-media-type',
        'service-unavailable',
      ]),
    },
  });

  return {
    list: {
      tags,
      summary: `List ${plural}`,
      operationId: `list${Name}s`,
      description: `${resource.description} A page of records in id order; follow Link rel="next" for the next one.`,
      headers: requestHeaders(),
      response: {
        200: jsonResponse(`A page of ${plural} (an empty array past the last page).`, Type.Array(record), {
          Link: ResponseHeaders.link,
        }),
        ...problemResponses(['invalid-query', 'service-unavailable']),
      },
    },
    read: {
      tags,
      summary: `Read one ${singular}`,
      operationId: `read${Name}`,
      headers: requestHeaders({ 'If-None-Match': IfNoneMatchHeader }),
      response: {
        200: one(`The ${singular}.`),
        304: emptyResponse('Not modified: the ETag in If-None-Match still matches.', { ETag: ResponseHeaders.etag }),
        ...problemResponses(['not-found', 'service-unavailable']),
      },
    },
    create: {
      tags,
      summary: `Create a ${singular}`,
      operationId: `create${Name}`,
      description: 'Any JSON object; id, createdAt and updatedAt are set by the server and ignored when sent.',
      headers: requestHeaders(),
      body: Type.Ref(schemas.fields.$id),
      response: {
        201: one(`The created ${singular}.`, { Location: ResponseHeaders.location }),
        ...problemResponses([
          'malformed-json',
          'invalid-record',
          'payload-too-large',
          'unsupported-media-type',
          'service-unavailable',
        ]),
      },
    },
    modify: changeBody(`Modify a ${singular}`, `modify${Name}`),
    patch: changeBody(`Modify a ${singular} (PATCH, same as PUT)`, `patch${Name}`),
    remove: {
      tags,
      summary: `Delete a ${singular}`,
      operationId: `delete${Name}`,
      headers: requestHeaders({ Prefer: PreferHeader }),
      response: {
        200: one(`The ${singular} as it was before deletion.`),
        204: emptyResponse('Deleted; no body, as Prefer: return=minimal asked.', {
          'Preference-Applied': ResponseHeaders.preferenceApplied,
        }),
        ...problemResponses(['not-found', 'service-unavailable']),
      },
    },
  };
}
