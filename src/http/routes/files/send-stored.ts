/**
 * A stored object sent as HTTP serves a file: conditional on its ETag (`If-None-Match`:
 * 304), a byte range of it (`Range`: 206, or 416 past its end; `If-Range` falls back to
 * the whole when the client's copy is stale), or the whole (200), streamed from the file
 * storage and never held in memory. HEAD gets the same headers without opening the bytes.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import rangeParser from 'range-parser';
import type { FileStorage } from '../../../store/files/file-storage.js';
import { HttpProblem } from '../../problem.js';
import { fileHeaders } from './file-headers.js';

/** What is sent: the object at `key` of `storage`, `size` bytes of `type`, named `name`. */
export interface Stored {
  readonly storage: FileStorage;
  readonly key: string;
  readonly name: string;
  readonly type: string;
  readonly size: number;
  /** A strong entity tag, quoted. */
  readonly etag: string;
}

export async function sendStored(request: FastifyRequest, reply: FastifyReply, stored: Stored) {
  const { storage, key, size, etag } = stored;
  fileHeaders(reply, stored);
  if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
  const range = rangeOf(request, size, etag);
  if (range === 'unsatisfiable') {
    throw new HttpProblem('range-not-satisfiable', `The file has ${size} bytes; the Range asks for none of them.`, {
      headers: { 'content-range': `bytes */${size}` },
    });
  }
  const length = range ? range.end - range.start + 1 : size;
  reply.code(range ? 206 : 200).header('content-length', String(length));
  if (range) reply.header('content-range', `bytes ${range.start}-${range.end}/${size}`);
  // Fastify's HEAD route sets Content-Length to the size of a body sent, but keeps it for a
  // stream, which it drains: an empty one, rather than the file read to the end for nothing.
  if (request.method === 'HEAD') return reply.send(Readable.from([]));
  const bytes = await storage.read(key, range);
  // Gone between the record's read and this one: replaced or removed meanwhile.
  if (!bytes) throw new HttpProblem('not-found', 'The file was removed while it was asked for.');
  return reply.send(bytes);
}

/** Whether `If-None-Match` names `etag` (or is `*`), by weak comparison as RFC 9110 has it for GET. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * The one range a request asks for: none (no Range, one of another unit, a malformed one,
 * several, or an If-Range that no longer matches: the whole is sent), the range, or
 * `unsatisfiable` when it starts past the end.
 */
function rangeOf(request: FastifyRequest, size: number, etag: string) {
  const header = request.headers.range;
  if (!header) return undefined;
  const ifRange = request.headers['if-range'];
  // If-Range compares strongly, and a date never matches: the ETag is the only validator sent.
  if (ifRange !== undefined && String(ifRange).trim() !== etag) return undefined;
  const ranges = rangeParser(size, header, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}
