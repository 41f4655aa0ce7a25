/**
 * A batch from its operations, read and authorized, to its answer: the bytes its references
 * may fill in counted (./resolved-size.ts), its password hashed first
 * (./readied-operations.ts), then, under its `Idempotency-Key` if it sent one, its steps in
 * one transaction and the answer (./batch-transaction.ts). What the request alone holds
 * (its caller, whose share of hashing, its key) comes in as values.
 */
import type { BatchPlan, Store } from '../../store/store.js';
import type { Holder } from '../in-flight-gate.js';
import { type IdempotencyOf, type IdempotentResult, idempotently, type RecordKit } from '../operations/index.js';
import type { Caller } from '../rules/record-access.js';
import { type BatchOperation, changedRecords } from './batch-operations.js';
import { answerOf, runSteps } from './batch-transaction.js';
import { readiedAll } from './readied-operations.js';
import { ResolvedSize } from './resolved-size.js';

export interface BatchRun {
  /** Each operation's collection's record kit. */
  kitOf(operation: BatchOperation): RecordKit;
  readonly caller: Caller;
  /** Whose share of hashing the passwords are hashed within. */
  readonly holder: Holder;
  readonly idempotency: IdempotencyOf;
  /** How long the batch may run in all (the statement budget). */
  readonly budgetMs: number;
  /** The most bytes the operations' bodies may write, references filled in (BODY_LIMIT, as one body). */
  readonly maxBodyBytes: number;
  /** The most bytes the answer may take (MAX_PAGE_BYTES, as a list page). */
  readonly maxAnswerBytes: number;
}

/** Runs `operations` as one transaction; the answer is their results as JSON text, or the first run's replayed. */
export async function runBatch(
  store: Pick<Store, 'batch'>,
  operations: readonly BatchOperation[],
  run: BatchRun,
): Promise<IdempotentResult<string>> {
  const size = new ResolvedSize(operations, run.maxBodyBytes);
  const ready = await readiedAll(operations, run.kitOf, run);
  return idempotently(run.idempotency, async (claim) => {
    const answer = (done: Parameters<typeof answerOf>[1]) => answerOf(operations, done);
    const plan: Omit<BatchPlan, 'next'> = {
      budgetMs: run.budgetMs,
      changes: changedRecords(operations),
      ...(claim && { idempotency: { ...claim, answer } }),
    };
    const done = await runSteps(store, ready, run.caller, { size, maxAnswerBytes: run.maxAnswerBytes, plan });
    ready.find((operation) => operation.mail)?.kit.mailQueued();
    return answer(done);
  });
}
