/**
 * The REST routes of one resource, derived from its definition: list, read, create,
 * modify and delete at the canonical paths and the accepted aliases.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { canonicalPaths, type ResourceDefinition } from '../resources.js';
import { operationSchemas } from '../schemas/operations.js';
import { type IdParams, IdParamsSchema, type ListQuery, ListQuerySchema, recordSchemas } from '../schemas/record.js';
import type { Collection } from '../store/store.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { recordFields, requireJsonObject } from './json-body.js';
import { type Operation, registerPaths } from './paths.js';
import { prefers } from './prefer.js';
import { HttpProblem } from './problem.js';
import { etagOf, JSON_TYPE, renderRecords, sendRecord } from './record-response.js';

/** Registers every path of `resource`, served from `collection`. */
export function registerResourceRoutes(app: FastifyInstance, resource: ResourceDefinition, collection: Collection) {
  const schemas = recordSchemas(resource);
  for (const schema of Object.values(schemas)) app.addSchema(schema);
  const docs = operationSchemas(resource, schemas);
  const op = operations(resource, collection);
  const withDocs = (operation: Operation, schema: FastifySchema): Operation => ({
    ...operation,
    schema: { ...operation.schema, ...schema },
  });
  const list = withDocs(op.list, docs.list);
  const create = withDocs(op.create, docs.create);
  const itemOps = {
    GET: withDocs(op.read, docs.read),
    PUT: withDocs(op.modify, docs.modify),
    PATCH: withDocs(op.modify, docs.patch),
    DELETE: withDocs(op.remove, docs.remove),
  };
  registerPaths(app, [
    { url: `/${resource.plural}/`, operations: { GET: list } },
    { url: `/${resource.singular}/`, operations: { POST: create } },
    { url: `/${resource.singular}/:id/`, operations: itemOps },
    // The plural forms most REST clients assume: POST /users/ and /users/7/.
    { url: `/${resource.plural}/`, alias: true, operations: { POST: create } },
    { url: `/${resource.plural}/:id/`, alias: true, operations: itemOps },
  ]);
}

function operations(resource: ResourceDefinition, collection: Collection) {
  const paths = canonicalPaths(resource);
  const notFound = (id: string | number) =>
    new HttpProblem('not-found', `There is no ${resource.singular} with id ${JSON.stringify(String(id))}.`);

  /** The record id of an item path; anything but a positive integer names no record. */
  const idOf = (request: FastifyRequest): number => {
    const raw = (request.params as IdParams).id;
    const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : 0;
    if (!Number.isSafeInteger(id) || id < 1) throw notFound(raw);
    return id;
  };

  const list: Operation = {
    schema: { querystring: ListQuerySchema },
    async handler(request, reply) {
      const { limit, cursor } = request.query as ListQuery;
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      const rows = await collection.list({ limit: limit + 1, afterId: after?.id ?? 0 });
      const page = rows.length > limit ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      if (rows.length > limit && last) {
        const next = `${paths.collection}?limit=${limit}&cursor=${encodeCursor({ id: last.id })}`;
        reply.header('link', `<${next}>; rel="next"`);
      }
      return reply.type(JSON_TYPE).send(renderRecords(page));
    },
  };

  const read: Operation = {
    schema: { params: IdParamsSchema },
    async handler(request, reply) {
      const id = idOf(request);
      const record = await collection.get(id);
      if (!record) throw notFound(id);
      if (matchesAny(request.headers['if-none-match'], etagOf(record))) {
        return reply.code(304).header('etag', etagOf(record)).send();
      }
      return sendRecord(reply, 200, record);
    },
  };

  const create: Operation = {
    preValidation: requireJsonObject,
    async handler(request, reply) {
      const record = await collection.create(recordFields(request.body));
      reply.header('location', paths.item(record.id));
      return sendRecord(reply, 201, record);
    },
  };

  const modify: Operation = {
    schema: { params: IdParamsSchema },
    preValidation: requireJsonObject,
    async handler(request, reply) {
      const id = idOf(request);
      const record = await collection.merge(id, recordFields(request.body));
      if (!record) throw notFound(id);
      return sendRecord(reply, 200, record);
    },
  };

  const remove: Operation = {
    schema: { params: IdParamsSchema },
    async handler(request, reply: FastifyReply) {
      const id = idOf(request);
      const record = await collection.remove(id);
      if (!record) throw notFound(id);
      if (prefers(request, 'return', 'minimal')) {
        return reply.code(204).header('preference-applied', 'return=minimal').send();
      }
      return sendRecord(reply, 200, record);
    },
  };

  return { list, read, create, modify, remove };
}

/** Whether an If-None-Match header lists `etag` (or is `*`); weak comparison, as RFC 9110 says. */
function matchesAny(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
