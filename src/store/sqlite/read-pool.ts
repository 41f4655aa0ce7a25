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
 *
 * piscina is imported, and the pool made, at the first such read: a start that serves reads
 * by id only never loads it (docs/performance.md, Start-up and footprint).
 */
import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
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
  readonly #options: ReadPoolOptions;
  readonly #timeoutMs: number;
  #made: Promise<Piscina<ReadRequest, ReadReply>> | undefined;
  /** The pool once made, for `stats` (which cannot wait). */
  #pool: Piscina<ReadRequest, ReadReply> | undefined;
  #closed = false;

  constructor(options: ReadPoolOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs;
  }

  #poolOf(): Promise<Piscina<ReadRequest, ReadReply>> {
    if (this.#closed) return Promise.reject(new Error('the read pool is closed'));
    this.#made ??= import('piscina').then(({ Piscina }) => {
      this.#pool = this.#make(Piscina);
      return this.#pool;
    });
    return this.#made;
  }

  #make(Pool: typeof Piscina): Piscina<ReadRequest, ReadReply> {
    const options = this.#options;
    return new Pool({
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
      // The budget starts before the first read's import of piscina: it is the caller's wait.
      const signal = AbortSignal.timeout(this.#timeoutMs);
      const pool = await this.#poolOf();
      reply = await pool.run(request, { signal });
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
    return { threads: this.#pool?.threads.length ?? 0, queued: this.#pool?.queueSize ?? 0 };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pool = await this.#made?.catch(() => undefined);
    await pool?.destroy();
  }
}
