/**
 * Conditional requests (RFC 9110 §13) on single records: `If-None-Match` on reads and
 * `If-Match` on writes, against the strong ETag `"<id>-<version>"` every record carries.
 */
import type { StoredRecord, VersionCondition } from '../store/store.js';

/** The strong entity tag of a record's current state. */
export function etagOf(record: Pick<StoredRecord, 'id' | 'version'>): string {
  return `"${record.id}-${record.version}"`;
}

/** Whether an If-None-Match header lists the record's tag (or is `*`); weak comparison, as RFC 9110 says. */
export function noneMatchHits(header: string | undefined, record: StoredRecord): boolean {
  if (!header) return false;
  const etag = etagOf(record);
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/**
 * The versions of record `id` an If-Match header accepts, for the store to check in the
 * same transaction as the write: `'*'`, a list (empty when no tag names this record, so the
 * write fails), or undefined without the header. Comparison is strong: weak tags never
 * match, as RFC 9110 requires for If-Match.
 */
export function ifMatchVersions(header: string | undefined, id: number): VersionCondition | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  const versions: number[] = [];
  for (const tag of header.split(',')) {
    const match = /^"(\d+)-(\d+)"$/.exec(tag.trim());
    if (match && Number(match[1]) === id) versions.push(Number(match[2]));
  }
  return versions;
}
