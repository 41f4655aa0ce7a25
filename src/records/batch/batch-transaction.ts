/**
 * A batch's transaction: its readied operations (./readied-operations.ts) as the store's
 * steps (./batch-steps.ts), all kept or none, and the answer's JSON made from their results.
 */
import { collectionPaths } from '../../core/collection.js';
import { type BatchPlan, type BatchResult, BatchStepError, type Store, type StoredRecord } from '../../store/store.js';
import { etagOf } from '../conditional.js';
import { renderRecord } from '../render.js';
import type { Caller } from '../rules/record-access.js';
import type { BatchOperation } from './batch-operations.js';
import { batchSteps } from './batch-steps.js';
import type { ReadiedOperation } from './readied-operations.js';
import type { ResolvedSize } from './resolved-size.js';

/**
 * Runs the batch with runs of creates grouped; when the store refuses one of those runs,
 * again one operation at a time, so that the refusal names the operation it is about.
 * `maxAnswerBytes` caps the answer (MAX_PAGE_BYTES, as a list page).
 */
export async function runSteps(
  store: Pick<Store, 'batch'>,
  ready: readonly ReadiedOperation[],
  caller: Caller,
  { size, maxAnswerBytes, plan }: { size: ResolvedSize; maxAnswerBytes: number; plan: Omit<BatchPlan, 'next'> },
): Promise<BatchResult[]> {
  const limits = { maxAnswerBytes, size };
  const steps = batchSteps(ready, caller, { group: true, ...limits });
  try {
    return await store.batch({ ...plan, next: steps.next });
  } catch (error) {
    if (!(error instanceof BatchStepError) || !steps.grouped(error.index)) throw error;
    const oneByOne = batchSteps(ready, caller, { group: false, ...limits });
    return store.batch({ ...plan, next: oneByOne.next });
  }
}

/** Each operation's status, the headers that matter and its record, in order, as JSON text. */
export function answerOf(operations: readonly BatchOperation[], done: readonly BatchResult[]): string {
  const entries = done.map((record, index) => {
    // Every step gave a record: one that gave none stopped the batch (./batch-steps.ts).
    const { action, collection } = operations[index] as BatchOperation;
    const created = action === 'create';
    const headers: Record<string, string> = { etag: etagOf(record as StoredRecord) };
    if (created) headers.location = collectionPaths(collection).item((record as StoredRecord).id);
    const body = renderRecord(record as StoredRecord);
    return `{"status":${created ? 201 : 200},"headers":${JSON.stringify(headers)},"body":${body}}`;
  });
  return `[${entries.join(',')}]`;
}
