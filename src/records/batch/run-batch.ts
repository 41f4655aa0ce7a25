/**
 * A batch run: its operations, readied (./readied-operations.ts), as the store's steps
 * (./batch-steps.ts) in one transaction, and its answer's JSON; what each operation needs of
 * its caller to be authorized as if sent alone.
 */
import { collectionPaths } from '../../core/collection.js';
import type { RuleOperation } from '../../core/rules/rule-tree.js';
import { type BatchPlan, type BatchResult, BatchStepError, type Store, type StoredRecord } from '../../store/store.js';
import { etagOf } from '../conditional.js';
import type { RecordKit } from '../operations/index.js';
import { renderRecord } from '../render.js';
import type { Caller, RulePolicy } from '../rules/record-access.js';
import type { BatchAction, BatchOperation } from './batch-operations.js';
import { batchSteps } from './batch-steps.js';
import type { ReadiedOperation } from './readied-operations.js';
import type { ResolvedSize } from './resolved-size.js';

const RULE_OF: Record<BatchAction, RuleOperation> = {
  create: 'create',
  merge: 'update',
  remove: 'delete',
  read: 'view',
};

/** The policy the collection's rules set on `operation`, as on the same request sent alone. */
export function operationPolicy(kit: RecordKit, operation: BatchOperation): RulePolicy {
  return kit.access.policy(RULE_OF[operation.action]);
}

/**
 * Runs the batch with runs of creates grouped; when the store refuses one of those runs,
 * again one operation at a time, so that the refusal names the operation it is about.
 * `maxAnswerBytes` caps the answer (MAX_PAGE_BYTES, as a list page).
 */
export async function runBatch(
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
