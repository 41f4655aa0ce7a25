/** Sending records: the body from src/records/render.ts, with the headers a record's response has. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf } from '../../../records/conditional.js';
import { JSON_TYPE, renderRecord } from '../../../records/render.js';
import type { StoredRecord } from '../../../store/store.js';

/** Sends one record with its ETag. */
export function sendRecord(reply: FastifyReply, status: number, record: StoredRecord): FastifyReply {
  return reply.code(status).header('etag', etagOf(record)).type(JSON_TYPE).send(renderRecord(record));
}

/**
 * 201 with the records, each with its id; no header names their addresses (one Location
 * cannot, and a Link to each of 1,000 records passes the 16 KiB of headers that Node's and
 * most clients' parsers take).
 */
export function sendCreated(reply: FastifyReply, records: readonly StoredRecord[]) {
  return reply
    .code(201)
    .type(JSON_TYPE)
    .send(`[${records.map(renderRecord).join(',')}]`);
}

/** Whether a create's body is a bulk create. */
export const isBulk = (request: FastifyRequest): request is FastifyRequest & { body: unknown[] } =>
  Array.isArray(request.body);
