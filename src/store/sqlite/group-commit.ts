/**
 * Group commit for SQLite: writes that arrive together share one transaction and so one
 * fsync, and none of them is acknowledged before that fsync.
 *
 * A unit of work is a synchronous function (better-sqlite3 statements) that runs inside the
 * batch's transaction under a SAVEPOINT of its own. If it throws, only its savepoint is
 * rolled back and only its promise rejects; the others in the batch commit. Every promise
 * settles only after COMMIT has returned, and with `synchronous = FULL` COMMIT returns only
 * once the WAL is fsynced: an acknowledged write is on disk.
 *
 * Batches form by themselves: a unit queued while the event loop handles a burst of
 * requests waits for the check phase (setImmediate), when the whole burst's writes run and
 * commit at once. While that fsync blocks the event loop, new requests wait in the socket
 * buffers and form the next batch. Nothing waits on a timer, so a lone write is not delayed.
 *
 * Written by hand: no maintained library does group commit over better-sqlite3.
 */
import type { Database, Statement } from 'better-sqlite3';

/** Work to run inside the batch transaction. It must be synchronous: it runs under a savepoint. */
export type UnitOfWork<T> = () => T;

export interface GroupCommitOptions {
  /** The most units one transaction takes; the rest go to the next batch (default 500). */
  maxBatch?: number;
  /** What a caller sees of a database error (for example "unavailable, retry"). */
  mapError?: (error: unknown) => unknown;
}

interface Queued {
  work: UnitOfWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  /** Transactions committed, and the units they held: how well writes are grouped. */
  readonly stats = { batches: 0, units: 0 };

  readonly #db: Database;
  readonly #maxBatch: number;
  readonly #mapError: (error: unknown) => unknown;
  readonly #sql: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Statement>;
  #queue: Queued[] = [];
  #scheduled = false;

  constructor(db: Database, options: GroupCommitOptions = {}) {
    this.#db = db;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#mapError = options.mapError ?? ((error) => error);
    // IMMEDIATE takes the write lock up front, waiting up to busy_timeout for another
    // process that holds it, so a batch never fails half-way for want of the lock.
    this.#sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT unit'),
      release: db.prepare('RELEASE unit'),
      rollbackTo: db.prepare('ROLLBACK TO unit'),
    };
  }

  /** Queues `work` for the next batch; resolves with its result once the batch is durable. */
  run<T>(work: UnitOfWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Commits everything queued now, synchronously (before closing the database). */
  drain(): void {
    while (this.#queue.length > 0) this.#commitNext();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#commitNext();
      // One batch per turn of the event loop, so that its responses go out before the next fsync.
      if (this.#queue.length > 0) this.#schedule();
    });
  }

  #commitNext(): void {
    const batch = this.#queue.splice(0, this.#maxBatch);
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.#transact(batch);
    } catch (error) {
      this.#fail(batch, error);
      return;
    }
    this.stats.batches++;
    this.stats.units += batch.length;
    // Only now, with the batch durable, does any caller hear how its write went.
    for (const [i, unit] of batch.entries()) {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(this.#mapError(outcome.error));
    }
  }

  /** Runs a batch in one transaction and commits it; throws when nothing of it was committed. */
  #transact(batch: readonly Queued[]): Outcome[] {
    this.#sql.begin.run();
    const outcomes: Outcome[] = [];
    for (const unit of batch) {
      this.#sql.savepoint.run();
      try {
        const value = unit.work();
        if (value instanceof Promise) throw new Error('a unit of work must be synchronous');
        this.#sql.release.run();
        outcomes.push({ ok: true, value });
      } catch (error) {
        // Some errors (disk full, I/O error) make SQLite roll back the whole transaction:
        // the units before this one are gone too, so the whole batch fails.
        if (!this.#db.inTransaction) throw error;
        this.#sql.rollbackTo.run();
        this.#sql.release.run();
        outcomes.push({ ok: false, error });
      }
    }
    this.#sql.commit.run();
    return outcomes;
  }

  /** Nothing of the batch was committed: roll back what is left and reject every unit. */
  #fail(batch: readonly Queued[], error: unknown): void {
    try {
      if (this.#db.open && this.#db.inTransaction) this.#sql.rollback.run();
    } catch {
      // The connection is broken; SQLite discards the uncommitted transaction with it.
    }
    const mapped = this.#mapError(error);
    for (const unit of batch) unit.reject(mapped);
  }
}
