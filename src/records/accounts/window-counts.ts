/**
 * Counts per name over a fixed window (failed sign-ins, password hashes): how many in the
 * current window and how long it has left. Kept in this process here; the failed sign-ins
 * can be kept in Redis as well, through the same interface (./sign-in-limit.ts).
 */

/** Names kept in this process at most; past it the oldest window is forgotten. */
const MAX_KEYS = 100_000;

export interface WindowCounts {
  /** What is counted under `key` in its window, and the milliseconds left of it. */
  read(key: string): Promise<{ count: number; leftMs: number }>;
  add(key: string): Promise<void>;
}

/** Counts in this process, each name's window starting at its first count. */
export function memoryCounts(windowMs: number, now: () => number = Date.now): WindowCounts {
  const windows = new Map<string, { count: number; until: number }>();
  const current = (key: string) => {
    const found = windows.get(key);
    if (found && found.until > now()) return found;
    if (found) windows.delete(key);
    return undefined;
  };
  return {
    async read(key) {
      const found = current(key);
      return { count: found?.count ?? 0, leftMs: found ? found.until - now() : 0 };
    },
    async add(key) {
      const found = current(key);
      if (found) {
        found.count++;
        return;
      }
      if (windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value as string);
      windows.set(key, { count: 1, until: now() + windowMs });
    },
  };
}
