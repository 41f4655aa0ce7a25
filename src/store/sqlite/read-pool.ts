/**
 * Reads that may run long (a scan, a sort without an index, a count, a search) run on a
 * pool of worker threads, each with its own connection, so that the event loop never waits
 * for them: a read by id beside four full-table searches answers at once.
 *
 * Each read has a time budget from the moment it is asked, queueing included. Past it, the
 * caller gets {@link StatementTimeoutError} (a 503 with Retry-After) and the thread running
 * the read is terminated and replaced (piscina does both on abort). A statement inside
 * SQLite cannot be interrupted from outside, so the old thread stops once SQLite hands it
 * back control; until then it costs CPU, never the event loop.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { StatementTimeoutError } from '../store.js';
import type { ReadReply, ReadRequest } from './read-worker.js';

export interface ReadPoolOptions {
  /** The database file (a path: `:memory:` cannot be shared between threads). */
  path: string;
  /** Threads at most; each holds a connection and its page cache. */
  threads?: number;
  /** How long a read may take, queueing included (ms). */
  timeoutMs: number;
  /** How long a thread waits for a lock another process holds (ms). */
  busyTimeoutMs: number;
}

/** Threads by default: one per core, at least two, so that one slow read never holds every thread. */
export const DEFAULT_READ_THREADS = Math.min(8, Math.max(2, availableParallelism()));

export class ReadPool {
  readonly #pool: Piscina<ReadRequest, ReadReply>;
  readonly #timeoutMs: number;

  constructor(options: ReadPoolOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#pool = new Piscina({
      // read-worker.ts under tsx (tests, `npm run dev`), read-worker.js in dist/.
      filename: new URL(`./read-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href,
      minThreads: 0,
      maxThreads: options.threads ?? DEFAULT_READ_THREADS,
      // Threads stay for a while after a burst: starting one costs a connection and a warm cache.
      idleTimeout: 60_000,
      workerData: { path: options.path, busyTimeoutMs: options.busyTimeoutMs },
    });
  }

  /** Runs `sql` on a pool thread; resolves with its rows. */
  async run(sql: string, params: ReadRequest['params'], maxBytes?: number): Promise<Record<string, unknown>[]> {
    let reply: ReadReply;
    try {
      const request: ReadRequest = { sql, params, ...(maxBytes === undefined ? {} : { maxBytes }) };
      reply = await this.#pool.run(request, { signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (error) {
      if ((error as Error).name === 'AbortError') {
        throw new StatementTimeoutError(this.#timeoutMs, { cause: error });
      }
      throw error;
    }
    if ('error' in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return reply.rows;
  }

  /** Threads running or ready, and reads waiting for one: for /metrics. */
  get stats() {
    return { threads: this.#pool.threads.length, queued: this.#pool.queueSize };
  }

  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}
