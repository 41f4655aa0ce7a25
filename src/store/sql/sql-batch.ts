/**
 * Batches on any SQL database: the steps of several collections, each the program it runs
 * as alone (./record-programs.ts), one after the other in one transaction, so that all of
 * them are kept or none. On SQLite the transaction is one unit of group commit; on
 * PostgreSQL, one connection's BEGIN and COMMIT, under the row locks single writes take.
 *
 * Two batches that change the same records in different orders would each hold a record the
 * other waits for: a deadlock, which PostgreSQL ends (after its deadlock_timeout, a second by
 * default) by failing one of them. So before its first step a batch locks every record it
 * will change that it names by id, in one order (by collection, then id) that every batch
 * follows: the second to come waits for the first's commit and never holds what the first
 * needs. A record named only through an earlier result's field cannot be known before the
 * batch runs; it is locked when its step runs, and if the database ends the transaction for
 * it, the driver runs the batch again (after a pause drawn at random), and that attempt locks
 * it up front with the rest, since the one before met it.
 */
import {
  type BatchPlan,
  type BatchResult,
  type BatchStep,
  BatchStepError,
  IdempotencyConflictError,
  type RecordKey,
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
        return [yield* programs.create(step.data, undefined, step.account)];
      case 'createMany':
        return yield* programs.createMany(step.data, undefined, step.accounts);
      case 'merge':
        return [yield* programs.merge(step.id, step.patch, step.conditions)];
      case 'remove':
        return [yield* programs.remove(step.id, step.conditions)];
      case 'read':
        return [yield* programs.read(step.id)];
    }
  }

  /** Locks the records of `keys` as a merge would, by collection, then id. */
  function* lockInOrder(keys: ReadonlyMap<string, ReadonlySet<number>>): Program<void> {
    // Where writes take turns (SQLite's one writer), no other batch can hold any of them.
    if (dialect.forChange === '') return;
    for (const collection of [...keys.keys()].sort()) {
      yield* programsOf(collection).lockToChange([...(keys.get(collection) ?? [])]);
    }
  }

  return async function batch({ next, budgetMs, idempotency, changes = [] }: BatchPlan): Promise<BatchResult[]> {
    const deadline = Date.now() + budgetMs;
    // What an attempt locks up front: the records the plan names, and those an attempt before met.
    const known = new Map<string, Set<number>>();
    const remember = ({ collection, id }: RecordKey) => {
      const ids = known.get(collection) ?? new Set<number>();
      known.set(collection, ids.add(id));
    };
    for (const key of changes) remember(key);
    /** The step running (or being given) when the batch stopped; undefined once all ran. */
    let at: number | undefined;
    let table: string | undefined;
    function* work(): Program<BatchResult[]> {
      const done: BatchResult[] = [];
      yield* lockInOrder(known);
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
        if (step.kind === 'merge' || step.kind === 'remove') remember(step);
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
