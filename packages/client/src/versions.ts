/**
 * Which version of a record a conditional change (`ifMatch`) is based on. restock tags each
 * record's state with a strong ETag (`"<id>-<version>"`) on single-record answers only; a
 * list carries none, and the version is not a field of the record. So the client keeps the
 * ETag each single-record answer came with, and for any other copy of a record (from a list,
 * a feed, a spread `{ ...record }`) reads the ETag by id and takes it only if the stored
 * record still has the copy's own `updatedAt`: the copy's version field, in effect.
 */
import { ProblemError } from './problem-error.js';

/** The ETag each record was read with, for `ifMatch`. */
const etags = new WeakMap<object, string>();

/** Remembers the ETag `record` came with. */
export function remember(record: object, etag: string | null): void {
  if (etag) etags.set(record, etag);
}

/** The ETag `record` came with, if it is the very object a single-record answer gave. */
export function etagOf(record: object): string | undefined {
  return etags.get(record);
}

/** Reads record `id` now: its `updatedAt` and its ETag. */
export type ReadVersion = (id: number) => Promise<{ updatedAt: unknown; etag: string | undefined }>;

/**
 * The ETag to send as If-Match for `version` (an ETag, or a record held). One changed since
 * it was read is refused here as restock would refuse it: a 412 `precondition-failed`.
 */
export async function ifMatchTag(version: string | object, read: ReadVersion): Promise<string> {
  if (typeof version === 'string') return version;
  const known = etagOf(version);
  if (known !== undefined) return known;
  const { id, updatedAt } = version as { id?: unknown; updatedAt?: unknown };
  if (typeof id !== 'number' || typeof updatedAt !== 'string') {
    throw new TypeError('ifMatch: pass an ETag, or a record with its id and updatedAt');
  }
  const now = await read(id);
  // Two changes within one millisecond share an updatedAt: this check cannot tell them apart.
  if (now.updatedAt === updatedAt && now.etag !== undefined) return now.etag;
  throw new ProblemError({
    type: '/problems/precondition-failed',
    title: 'Precondition failed',
    status: 412,
    detail: `record ${id} changed since this copy was read (updatedAt ${updatedAt}); nothing was sent`,
  });
}
