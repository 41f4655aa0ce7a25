/**
 * The REST routes of one collection, derived from its definition: list, read, create,
 * modify and delete at the canonical paths and the accepted aliases.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { type Collection, collectionPaths } from '../../../core/collection.js';
import { type BulkCreateOptions, bulkRecords, createAll, type IndexedValues } from '../../../records/bulk-create.js';
import { etagOf, ifMatchVersions, noneMatchHits } from '../../../records/conditional.js';
import { encodeCursor } from '../../../records/cursor.js';
import { type ExpandSource, expand, expandPage, parseExpand, tooLarge, withExpand } from '../../../records/expand.js';
import { claimKey, idempotencyKeyIn } from '../../../records/idempotency.js';
import type { InFlightGate } from '../../../records/in-flight-gate.js';
import { nextPage, readPage } from '../../../records/list-page.js';
import { parseListQuery, type RawListQuery } from '../../../records/list-query.js';
import { recordChecks } from '../../../records/record-checks.js';
import { JSON_TYPE, recordRenderer, renderRecord } from '../../../records/render.js';
import {
  type IdempotencyKeys,
  type IdempotentCreate,
  type Records,
  RecordTooLargeError,
  type StoredRecord,
} from '../../../store/store.js';
import { operationDocs } from '../../openapi/operations.js';
import { type Operation, registerPaths } from '../../paths.js';
import { clientFields } from '../../plugins/json-body.js';
import { rateLimitKey } from '../../plugins/rate-limit/index.js';
import { HttpProblem } from '../../problem.js';
import { type ChangeFeedOptions, followChanges } from './change-feed.js';
import type { IdempotencyOptions } from './idempotency.js';
import { prefers } from './prefer.js';
import { isBulk, sendCreated, sendRecord } from './record-response.js';
import {
  EventsQueryShape,
  type IdParams,
  IdParamsShape,
  listQueryShape,
  type ReadQuery,
  readQueryShape,
} from './request-shapes.js';

/** What the routes of a collection are served from. */
export interface CollectionRoutesOptions {
  /** The collection's records in the store. */
  records: Records;
  idempotencyKeys: IdempotencyKeys;
  idempotency: IdempotencyOptions;
  /** The caps on costly list queries running at once. */
  costlyQueries: InFlightGate;
  /** Longest field name a query may name. */
  maxFieldNameLength: number;
  /** Largest record, its fields as compact JSON in bytes, that a create or change may leave. */
  maxRecordBytes: number;
  /** Largest list page in bytes (MAX_PAGE_BYTES). */
  maxPageBytes: number;
  /** The most records one create may send as an array (MAX_BULK_RECORDS). */
  maxBulkRecords: number;
  /** The most bytes a value of an indexed or unique field may hold (MAX_INDEXED_VALUE_BYTES). */
  maxIndexedValueBytes: number;
  /** Where `expand=` finds references and the records they name. */
  expandSource: ExpandSource;
  /** What the change feeds share: the log, its readers, the open feeds. */
  feeds: Omit<ChangeFeedOptions, 'collection' | 'maxFieldNameLength'>;
}

/** Registers every path of `collection`, each documented (src/http/openapi/operations.ts). */
export function registerCollectionRoutes(
  app: FastifyInstance,
  collection: Collection,
  options: CollectionRoutesOptions,
) {
  const docs = operationDocs(collection, options.maxBulkRecords);
  const op = operations(collection, options);
  const withDocs = (operation: Operation, more: FastifySchema): Operation => ({ ...operation, docs: more });
  const list = withDocs(op.list, docs.list);
  const create = withDocs(op.create, docs.create);
  const itemOps = {
    GET: withDocs(op.read, docs.read),
    PUT: withDocs(op.modify, docs.modify),
    PATCH: withDocs(op.modify, docs.patch),
    DELETE: withDocs(op.remove, docs.remove),
  };
  registerPaths(app, [
    { url: `/${collection.plural}/`, operations: { GET: list } },
    {
      url: `/${collection.plural}/events/`,
      policy: { tokenInQuery: true },
      operations: { GET: withDocs(op.events, docs.events) },
    },
    { url: `/${collection.singular}/`, operations: { POST: create } },
    { url: `/${collection.singular}/:id/`, operations: itemOps },
    // The plural forms most REST clients assume: POST /users/ and /users/7/.
    { url: `/${collection.plural}/`, alias: true, operations: { POST: create } },
    { url: `/${collection.plural}/:id/`, alias: true, operations: itemOps },
  ]);
}

function operations(collection: Collection, options: CollectionRoutesOptions) {
  const { records } = options;
  const paths = collectionPaths(collection);
  const referenceNames = collection.references.map((reference) => reference.name);
  const notFound = (id: string | number) =>
    new HttpProblem('not-found', `There is no ${collection.singular} with id ${JSON.stringify(String(id))}.`);

  /** The record id of an item path; anything but a positive integer names no record. */
  const idOf = (request: FastifyRequest): number => {
    const raw = (request.params as IdParams).id;
    const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : 0;
    if (!Number.isSafeInteger(id) || id < 1) throw notFound(raw);
    return id;
  };

  const { schema } = collection;
  const indexed: IndexedValues = {
    paths: [...collection.indexes, ...collection.unique].map((field) => field.path),
    maxBytes: options.maxIndexedValueBytes,
  };
  const checks = recordChecks(collection, indexed);
  const created = (reply: FastifyReply, record: StoredRecord | StoredRecord[]) =>
    Array.isArray(record)
      ? sendCreated(reply, record)
      : sendRecord(reply.header('location', paths.item(record.id)), 201, record);
  const bulk: BulkCreateOptions = {
    records,
    ...(schema && { schema }),
    maxRecordBytes: options.maxRecordBytes,
    maxRecords: options.maxBulkRecords,
    indexed,
  };

  const list: Operation = {
    schema: { querystring: listQueryShape(referenceNames) },
    async handler(request, reply) {
      const raw = request.query as RawListQuery;
      const { query, sortKey, fields } = parseListQuery(raw, options.maxFieldNameLength);
      const expansions = parseExpand(raw.expand, collection.plural, options.expandSource);
      const counted = prefers(request, 'count', 'exact');
      const read = () =>
        Promise.all([
          readPage(records, query, recordRenderer(fields), options.maxPageBytes),
          counted ? records.count(query) : undefined,
        ]);
      const [page, total] =
        counted || (await records.isCostly(query))
          ? await options.costlyQueries.run(rateLimitKey(request), read)
          : await read();
      await expandPage(page, expansions, options.expandSource, options.maxPageBytes);
      if (page.more && page.last) {
        reply.header(
          'link',
          `<${nextPage(request.url, paths.collection, encodeCursor(page.last.position, sortKey))}>; rel="next"`,
        );
      }
      if (total !== undefined) reply.header('x-total-count', String(total)).header('preference-applied', 'count=exact');
      return reply.type(JSON_TYPE).send(`[${page.records.join(',')}]`);
    },
  };

  const read: Operation = {
    schema: { params: IdParamsShape, querystring: readQueryShape(referenceNames) },
    async handler(request, reply) {
      const id = idOf(request);
      const expansions = parseExpand((request.query as ReadQuery).expand, collection.plural, options.expandSource);
      const record = await records.get(id);
      if (!record) throw notFound(id);
      if (noneMatchHits(request.headers['if-none-match'], record)) {
        return reply.code(304).header('etag', etagOf(record)).send();
      }
      if (expansions.length === 0) return sendRecord(reply, 200, record);
      // The ETag is the record's own: it says nothing of the records embedded in it.
      const expanded = await expand([record], expansions, options.expandSource, options.maxPageBytes);
      if ((expanded.bytes[0] ?? 0) > options.maxPageBytes) throw tooLarge(options.maxPageBytes);
      const text = withExpand(renderRecord(record), expanded.text(0));
      return reply.code(200).header('etag', etagOf(record)).type(JSON_TYPE).send(text);
    },
  };

  const create: Operation = {
    async handler(request, reply) {
      // An array creates all its records or none (src/records/bulk-create.ts); an object, one record.
      const texts = isBulk(request) ? bulkRecords(request.body, bulk) : undefined;
      const fields = texts ? undefined : clientFields(request.body);
      if (fields) checks.sent(fields);
      const data = texts ? `[${texts.join(',')}]` : JSON.stringify(fields);
      const bytes = texts ? 0 : Buffer.byteLength(data);
      if (bytes > options.maxRecordBytes) throw new RecordTooLargeError(bytes, options.maxRecordBytes);
      const write = (claim?: IdempotentCreate) =>
        texts ? createAll(texts, bulk, () => records.createMany(texts, claim)) : records.create(data, claim);
      const key = idempotencyKeyIn(request.headers['idempotency-key']);
      if (key === undefined) return created(reply, await write());

      const what = { method: request.method, path: paths.create, body: data };
      const outcome = await claimKey(
        options.idempotencyKeys,
        { scope: options.idempotency.scopeOf(request), key },
        what,
        options.idempotency.staleAfterMs,
      );
      if (outcome.kind === 'replay') return created(reply.header('idempotent-replayed', 'true'), outcome.record);
      try {
        return created(reply, await write(outcome.claim));
      } catch (error) {
        // Nothing was written: let a retry run again rather than wait for the claim to go stale.
        await options.idempotencyKeys
          .release(outcome.claim.scope, outcome.claim.key, outcome.claim.token)
          .catch((releaseError: unknown) => request.log.warn({ err: releaseError }, 'could not release a key'));
        throw error;
      }
    },
  };

  const modify: Operation = {
    schema: { params: IdParamsShape },
    async handler(request, reply) {
      const id = idOf(request);
      // Parsed already: the store merges the object, without writing and reading it again.
      const patch = clientFields(request.body);
      const ifVersion = ifMatchVersions(request.headers['if-match'], id);
      const maxBytes = options.maxRecordBytes;
      const record = await records.merge(id, patch, { ifVersion, check: checks.merged, maxBytes });
      if (!record) throw notFound(id);
      return sendRecord(reply, 200, record);
    },
  };

  const remove: Operation = {
    schema: { params: IdParamsShape },
    async handler(request, reply: FastifyReply) {
      const id = idOf(request);
      const record = await records.remove(id, { ifVersion: ifMatchVersions(request.headers['if-match'], id) });
      if (!record) throw notFound(id);
      if (prefers(request, 'return', 'minimal')) {
        return reply.code(204).header('preference-applied', 'return=minimal').send();
      }
      return sendRecord(reply, 200, record);
    },
  };

  const events: Operation = {
    schema: { querystring: EventsQueryShape },
    handler: (request, reply) =>
      followChanges(request, reply, {
        ...options.feeds,
        collection: collection.plural,
        maxFieldNameLength: options.maxFieldNameLength,
      }),
  };

  return { list, read, create, modify, remove, events };
}
