/**
 * Batches as the store takes them: steps on any collections, given one at a time as the
 * results before them are known, run in one transaction (sql/sql-batch.ts).
 */

import type { StoredRecord } from './record-model.js';
import type { IdempotentCreate, RemoveConditions, WriteConditions } from './write-model.js';

/** One operation of a batch, as the store runs it inside the batch's transaction. */
export type BatchStep = { readonly collection: string } & (
  | { readonly kind: 'create'; readonly data: string; readonly secret?: string }
  /** Several creates in a row, none naming another's result: one INSERT, and one result each. */
  | { readonly kind: 'createMany'; readonly data: readonly string[]; readonly secrets: readonly (string | undefined)[] }
  | { readonly kind: 'merge'; readonly id: number; readonly patch: object; readonly conditions: WriteConditions }
  | { readonly kind: 'remove'; readonly id: number; readonly conditions: RemoveConditions }
  /** The record as it is at that point of the batch. */
  | { readonly kind: 'read'; readonly id: number }
);

/** What a step gave: its record (as written, deleted or read), or undefined where no record has its id. */
export type BatchResult = StoredRecord | undefined;

/** How a batch runs: its steps, given one at a time, and what bounds it. */
export interface BatchPlan {
  /**
   * The next step, given the results of those before it (`done.length` is its index), or
   * undefined when there are no more. It may throw (a step refused once an earlier one's
   * result is known): the batch then stops, nothing of it is kept, and the store rejects
   * with a {@link BatchStepError} naming the step. Called again from the first step if the
   * store runs the batch again (a retry after another process's lock).
   */
  next(done: readonly BatchResult[]): BatchStep | undefined;
  /** How long the batch may run in all: one still running then stops, rolled back ({@link StatementTimeoutError}). */
  budgetMs: number;
  /** Completes this `Idempotency-Key` claim, in the batch's transaction, with the answer (JSON text) `answer` gives. */
  idempotency?: IdempotentCreate & { answer(done: readonly BatchResult[]): string };
}
