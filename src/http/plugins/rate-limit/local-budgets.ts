/**
 * Request budgets counted in this process: a fixed window per key, started by the key's
 * first request, as @fastify/rate-limit's own store counts them. Written here rather than
 * used through that plugin because its path costs a read about 10 µs of CPU (an async hook,
 * three awaits and an LRU update per request; bench/README.md, "Per-request cost"), and
 * this is one synchronous Map lookup. The plugin still counts in Redis, where a round trip
 * costs far more than its hooks.
 */

export interface Spent {
  /** Requests left in the window. */
  remaining: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
  /** Whether this request is past the budget. */
  exceeded: boolean;
}

/** Keys kept at most: past it, windows that ended are forgotten, then the oldest windows. */
const MAX_KEYS = 100_000;

export class LocalBudgets {
  readonly #windows = new Map<string, { count: number; startedAt: number }>();
  #sweptAt = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one request against `key`'s budget. */
  spend(key: string, now = Date.now()): Spent {
    let window = this.#windows.get(key);
    if (window === undefined || now - window.startedAt >= this.windowMs) {
      if (window === undefined) this.#makeRoom(now);
      window = { count: 0, startedAt: now };
      this.#windows.set(key, window);
    }
    window.count++;
    return {
      remaining: Math.max(0, this.max - window.count),
      resetMs: window.startedAt + this.windowMs - now,
      exceeded: window.count > this.max,
    };
  }

  /** Windows kept now (for tests). */
  get size(): number {
    return this.#windows.size;
  }

  /**
   * Forgets the windows that ended, at most once a window (so the map holds the keys of
   * about two windows); past {@link MAX_KEYS} keys, also the oldest, whose budgets restart.
   */
  #makeRoom(now: number): void {
    if (now - this.#sweptAt >= this.windowMs || this.#windows.size >= MAX_KEYS) {
      this.#sweptAt = now;
      for (const [key, window] of this.#windows) {
        if (now - window.startedAt >= this.windowMs) this.#windows.delete(key);
      }
    }
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < MAX_KEYS) break;
      this.#windows.delete(key);
    }
  }
}
