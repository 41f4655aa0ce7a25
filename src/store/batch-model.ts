/**
 * Batches as the store takes them: steps on any collections, given one at a time as the
 * results before them are known, run in one transaction (sql/sql-batch.ts).
 */

import type { StoredRecord } from './record-model.js';
import type { AccountWrite, IdempotentCreate, RemoveConditions, WriteConditions } from './write-model.js';

/** One operation of a batch, as the store runs it inside the batch's transaction. */
export type BatchStep = { readonly collection: string } & (
  | { readonly kind: 'create'; readonly data: string; readonly account?: AccountWrite }
  /** Several creates in a row, none naming another's result: one INSERT, and one result each. */
  | {
      readonly kind: 'createMany';
      readonly data: readonly string[];
      readonly accounts: readonly (AccountWrite | undefined)[];
    }
  | { readonly kind: 'merge'; readonly id: number; readonly patch: object; readonly conditions: WriteConditions }
  | { readonly kind: 'remove'; readonly id: number; readonly conditions: RemoveConditions }
  /** The record as it is at that point of the batch. */
  | { readonly kind: 'read'; readonly id: number }
);

/** What a step gave: its record (as written, deleted or read), or undefined where no record has its id. */
export type BatchResult = StoredRecord | undefined;

/** A record by its collection (the plural, as steps name it) and id. */
export interface RecordKey {
  readonly collection: string;
  readonly id: number;
}

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
  /**
   * The records the batch will change (merge or delete) whose ids it names before it runs.
   * The store locks them all before the first step, in one order every batch follows (by
   * collection, then id), so that batches changing the same records in different orders
   * wait for one another rather than deadlock. A record a step names only through an earlier
   * result is locked when that step runs (sql/sql-batch.ts says what a retry does with it).
   */
  changes?: readonly RecordKey[];
  /** How long the batch may run in all: one still running then stops, rolled back ({@link StatementTimeoutError}). */
  budgetMs: number;
  /** Completes this `Idempotency-Key` claim, in the batch's transaction, with the answer (JSON text) `answer` gives. */
  idempotency?: IdempotentCreate & { answer(done: readonly BatchResult[]): string };
}
