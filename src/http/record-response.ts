/**
 * Writing records to the wire. The store hands back the client's fields as JSON text,
 * so a response is assembled by concatenation: stored JSON is never parsed and
 * re-serialized on the way out.
 */
import type { FastifyReply } from 'fastify';
import type { StoredRecord } from '../store/store.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** The record as clients see it: `id` first, then the client's fields, then the timestamps. */
export function renderRecord(record: StoredRecord): string {
  const fields = record.data.length > 2 ? `${record.data.slice(1, -1)},` : '';
  return `{"id":${record.id},${fields}"createdAt":"${record.createdAt}","updatedAt":"${record.updatedAt}"}`;
}

/** A JSON array of records. */
export function renderRecords(records: readonly StoredRecord[]): string {
  let out = '[';
  for (let i = 0; i < records.length; i++) {
    if (i > 0) out += ',';
    out += renderRecord(records[i] as StoredRecord);
  }
  return `${out}]`;
}

/** The strong entity tag of a record's current state. */
export function etagOf(record: StoredRecord): string {
  return `"${record.id}-${record.version}"`;
}

/** Sends one record with its ETag. */
export function sendRecord(reply: FastifyReply, status: number, record: StoredRecord): FastifyReply {
  return reply.code(status).header('etag', etagOf(record)).type(JSON_TYPE).send(renderRecord(record));
}
