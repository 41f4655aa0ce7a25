/**
 * Failed sign-ins, counted per account name and per client address over a fixed window: past
 * the most allowed, a sign-in is refused (429) before its password is hashed, so guessing
 * is slow for anyone, from anywhere, without letting one address lock everyone out. Kept in
 * this process, or in Redis so that every instance counts the same failures. Written by
 * hand: @fastify/rate-limit counts every request, not only the failed ones.
 */
import type { Redis } from 'ioredis';
import { Refusal } from '../../../records/refusal.js';

/** The window failures are counted in. */
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Keys kept in this process at most; past it the oldest window is forgotten. */
const MAX_KEYS = 100_000;

export interface FailureCounts {
  /** Failures counted under `key` in its window, and the milliseconds left of it. */
  read(key: string): Promise<{ count: number; leftMs: number }>;
  add(key: string): Promise<void>;
}

export function memoryCounts(now: () => number = Date.now): FailureCounts {
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
      windows.set(key, { count: 1, until: now() + FAILURE_WINDOW_MS });
    },
  };
}

/** Counts in Redis; while it does not answer, nothing is counted and nothing refused (as for the request budget). */
export function redisCounts(redis: Redis): FailureCounts {
  const name = (key: string) => `restock-sign-in:${key}`;
  return {
    async read(key) {
      try {
        const [count, left] = await Promise.all([redis.get(name(key)), redis.pttl(name(key))]);
        return { count: Number(count ?? 0), leftMs: Math.max(0, left) };
      } catch {
        return { count: 0, leftMs: 0 };
      }
    },
    async add(key) {
      try {
        await redis.multi().incr(name(key)).pexpire(name(key), FAILURE_WINDOW_MS, 'NX').exec();
      } catch {
        // Redis is away: the failure goes uncounted, as requests go unlimited.
      }
    },
  };
}

/** Runs a sign-in unless one of `keys` failed `max` times in its window; counts a failure under each. */
export async function limitFailures<T>(
  counts: FailureCounts,
  max: number,
  keys: readonly string[],
  attempt: () => Promise<T>,
  failed: (error: unknown) => boolean,
): Promise<T> {
  const seen = await Promise.all(keys.map((key) => counts.read(key)));
  const over = seen.filter(({ count }) => count >= max);
  if (over.length > 0) {
    const retryAfter = Math.ceil(Math.max(...over.map(({ leftMs }) => leftMs)) / 1000);
    throw new Refusal(
      'too-many-sign-ins',
      `Too many failed sign-ins for this account or from this address; retry in ${retryAfter} s.`,
      { retryAfter },
    );
  }
  try {
    return await attempt();
  } catch (error) {
    if (failed(error)) await Promise.all(keys.map((key) => counts.add(key)));
    throw error;
  }
}
