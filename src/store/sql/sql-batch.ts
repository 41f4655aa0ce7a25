/**
 * Batches on any SQL database: the steps of several collections, each the program it runs
 * as alone (./record-programs.ts), one after the other in one transaction, so that all of
 * them are kept or none. On SQLite the transaction is one unit of group commit; on
 * PostgreSQL, one connection's BEGIN and COMMIT, under the row locks single writes take.
 */
import {
  type BatchPlan,
  type BatchResult,
  type BatchStep,
  BatchStepError,
  IdempotencyConflictError,
  StatementTimeoutError,
} from '../store.js';
import type { Guard } from './driver.js';
import type { SqlEngine } from './engine.js';
import type { Program } from './program.js';
import type { RecordPrograms } from './record-programs.js';
import { completeBatchClaim } from './sql-idempotency.js';

export function sqlBatch(
  { driver, dialect }: Pick<SqlEngine, 'driver' | 'dialect'>,
  guard: Guard,
  programsOf: (collection: string) => RecordPrograms,
) {
  function* run(step: BatchStep): Program<BatchResult[]> {
    const programs = programsOf(step.collection);
    switch (step.kind) {
      case 'create':
        return [yield* programs.create(step.data, undefined, step.secret)];
      case 'createMany':
        return yield* programs.createMany(step.data, undefined, step.secrets);
      case 'merge':
        return [yield* programs.merge(step.id, step.patch, step.conditions)];
      case 'remove':
        return [yield* programs.remove(step.id, step.conditions)];
      case 'read':
        return [yield* programs.read(step.id)];
    }
  }

  return async function batch({ next, budgetMs, idempotency }: BatchPlan): Promise<BatchResult[]> {
    const deadline = Date.now() + budgetMs;
    /** The step running (or being given) when the batch stopped; undefined once all ran. */
    let at: number | undefined;
    let table: string | undefined;
    function* work(): Program<BatchResult[]> {
      const done: BatchResult[] = [];
      for (;;) {
        at = done.length;
        const step = next(done);
        if (!step) break;
        table = step.collection;
        // Each statement has its own budget; this one bounds the batch as a whole.
        if (Date.now() > deadline) {
          at = undefined;
          throw new StatementTimeoutError(budgetMs);
        }
        done.push(...(yield* run(step)));
      }
      at = undefined;
      if (idempotency) {
        const completed = yield completeBatchClaim(dialect, idempotency.answer(done), idempotency);
        if (completed.changes !== 1) throw new IdempotencyConflictError();
      }
      return done;
    }
    try {
      return await driver.transaction(work);
    } catch (error) {
      if (error instanceof BatchStepError) throw error;
      const failed = at;
      const mapped = await guard(Promise.reject(error), table).catch((storeError: unknown) => storeError);
      throw failed === undefined ? mapped : new BatchStepError(failed, mapped);
    }
  };
}
