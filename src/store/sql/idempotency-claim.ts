/**
 * What a stored Idempotency-Key says to a request that finds it taken, the same on every
 * store: another payload, a record since deleted, or the record to replay. A key still
 * running is left to the store, which knows how to tell a stale claim.
 */
import type { IdempotencyClaim, StoredRecord } from '../store.js';

/** A key's row as both stores read it. */
export interface StoredKey {
  fingerprint: string;
  state: string;
  collection: string | null;
  record: string | null;
  recordId: number | string | null;
}

/** The outcome of a key found taken by `fingerprint`'s request, or undefined while its first request runs. */
export function settledClaim(found: StoredKey, fingerprint: string): IdempotencyClaim | undefined {
  if (found.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (found.state !== 'done') return undefined;
  const collection = found.collection ?? '';
  if (found.record === null) return { state: 'gone', collection, id: Number(found.recordId ?? 0) };
  return { state: 'done', collection, record: JSON.parse(found.record) as StoredRecord | StoredRecord[] };
}
