/**
 * A request's write run: what ./prepare.ts readied, written by the store, and a record
 * that is not there, or that the caller may not see, answered as missing (404). A batch
 * runs the same readied writes as the steps of one transaction (../batch/batch-steps.ts).
 */
import type { IdempotentCreate, StoredRecord } from '../../store/store.js';
import { createAll } from '../bulk-create.js';
import type { Caller } from '../rules/record-access.js';
import { mergeConditions, removeConditions } from './prepare.js';
import type { RecordKit } from './record-kit.js';

/** A create readied: one record's text with its password's hash, if any, or many records' texts. */
export type ReadiedCreate =
  | { readonly data: string; readonly secret?: string | undefined }
  | { readonly texts: string[] };

/** Writes a readied create, its `Idempotency-Key` claim completed with it; many records are all written or none. */
export function createRecords(
  kit: RecordKit,
  ready: ReadiedCreate,
  claim?: IdempotentCreate,
): Promise<StoredRecord | StoredRecord[]> {
  if ('texts' in ready) return createAll(ready.texts, kit.bulk, () => kit.records.createMany(ready.texts, claim));
  return kit.records.create(ready.data, claim, ready.secret);
}

/** Record `id` changed by `patch` for `caller` (`secret`: a new password's hash), under its conditions. */
export async function changeRecord(
  kit: RecordKit,
  caller: Caller,
  id: number,
  change: { ifMatch: string | undefined; patch: Record<string, unknown>; secret?: string | undefined },
): Promise<StoredRecord> {
  const record = await kit.records.merge(id, change.patch, mergeConditions(kit, caller, id, change));
  if (!record) throw kit.notFound(id);
  return record;
}

/** Record `id` deleted for `caller`, under its conditions; the record as it was. */
export async function removeRecord(
  kit: RecordKit,
  caller: Caller,
  id: number,
  ifMatch: string | undefined,
): Promise<StoredRecord> {
  const record = await kit.records.remove(id, removeConditions(kit, caller, id, ifMatch));
  if (!record) throw kit.notFound(id);
  return record;
}
