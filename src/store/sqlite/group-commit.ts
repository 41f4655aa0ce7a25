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
 * Another process may hold the write lock (another worker, the sqlite3 shell). The
 * connection does not wait for it (busy_timeout 0, which would block the event loop): a
 * batch that finds the lock taken goes back to the head of the queue and is tried again
 * after a short, growing pause, while the event loop serves everything else. A write that
 * has waited `busyTimeoutMs` in all fails as unavailable (a 503).
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
  /** How long a write may wait for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Called once a batch that wrote anything is durable, in the turn that commits it. */
  onCommit?: () => void;
}

/** Pauses between tries for a lock another process holds: short first, as locks mostly are. */
const LOCK_RETRY_MS = [1, 2, 4, 8, 16, 25];

interface Queued {
  work: UnitOfWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  queuedAt: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  /** Transactions committed, and the units they held: how well writes are grouped. */
  readonly stats = { batches: 0, units: 0 };

  readonly #db: Database;
  readonly #maxBatch: number;
  readonly #mapError: (error: unknown) => unknown;
  readonly #busyTimeoutMs: number;
  readonly #onCommit: (() => void) | undefined;
  /** Tries since the lock was last found free. */
  #lockTries = 0;
  readonly #sql: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Statement>;
  #queue: Queued[] = [];
  #scheduled = false;

  constructor(db: Database, options: GroupCommitOptions = {}) {
    this.#db = db;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#mapError = options.mapError ?? ((error) => error);
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    this.#onCommit = options.onCommit;
    // IMMEDIATE takes the write lock up front, so a batch never fails half-way for want of it.
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
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject, queuedAt: Date.now() });
      this.#schedule();
    });
  }

  /**
   * Commits everything queued now, synchronously (before closing the database): here the
   * connection itself waits for a lock, up to the same budget, and then gives up.
   */
  drain(): void {
    this.#db.pragma(`busy_timeout = ${this.#busyTimeoutMs}`);
    while (this.#queue.length > 0) this.#commitNext(true);
  }

  /** Runs the next batch at the next check phase, or after `delayMs` while the lock is taken. */
  #schedule(delayMs = 0): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    const next = () => {
      this.#scheduled = false;
      const retryIn = this.#commitNext();
      // One batch per turn of the event loop, so that its responses go out before the next fsync.
      if (this.#queue.length > 0) this.#schedule(retryIn);
    };
    if (delayMs > 0) setTimeout(next, delayMs);
    else setImmediate(next);
  }

  /** Commits the next batch; returns how long to wait before the next try when the lock was taken. */
  #commitNext(final = false): number {
    const batch = this.#queue.splice(0, this.#maxBatch);
    if (batch.length === 0) return 0;
    let outcomes: Outcome[];
    try {
      outcomes = this.#transact(batch);
    } catch (error) {
      if (!final && isBusy(error) && !this.#db.inTransaction) return this.#waitForLock(batch, error);
      this.#fail(batch, error);
      return 0;
    }
    this.#lockTries = 0;
    this.stats.batches++;
    this.stats.units += batch.length;
    // Only now, with the batch durable, does any caller hear how its write went.
    for (const [i, unit] of batch.entries()) {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(this.#mapError(outcome.error));
    }
    // In the same turn: the callers' continuations run after it.
    if (outcomes.some((outcome) => outcome.ok)) this.#onCommit?.();
    return 0;
  }

  /** Another process holds the write lock: fails the writes that waited long enough, requeues the rest. */
  #waitForLock(batch: readonly Queued[], error: unknown): number {
    const now = Date.now();
    const expired = batch.filter((unit) => now - unit.queuedAt >= this.#busyTimeoutMs);
    if (expired.length > 0) this.#fail(expired, error);
    this.#queue.unshift(...batch.filter((unit) => now - unit.queuedAt < this.#busyTimeoutMs));
    const pause = LOCK_RETRY_MS[Math.min(this.#lockTries, LOCK_RETRY_MS.length - 1)] as number;
    this.#lockTries++;
    return pause;
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

/** SQLITE_BUSY and its extended codes: another connection holds the lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
