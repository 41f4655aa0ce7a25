/**
 * Failed sign-ins, counted per account name and per client address over a fixed window: past
 * the most allowed, a sign-in is refused (429) before its password is hashed, so guessing
 * is slow for anyone, from anywhere, without letting one address lock everyone out. Kept in
 * this process, or in Redis so that every instance counts the same failures. Written by
 * hand: @fastify/rate-limit counts every request, not only the failed ones.
 */
import type { Redis } from 'ioredis';
import { Refusal } from '../refusal.js';
import { memoryCounts, type WindowCounts } from './window-counts.js';

/** The window failures are counted in. */
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;

export type FailureCounts = WindowCounts;

/** Failures counted in this process, within {@link FAILURE_WINDOW_MS}. */
export function memoryFailures(): FailureCounts {
  return memoryCounts(FAILURE_WINDOW_MS);
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
