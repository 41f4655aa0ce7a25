/**
 * The plain-text passwords of an import into a collection of accounts, hashed before their
 * batch is written (never inside its transaction, which would hold the write lock for the
 * whole of it). A hash is slow by design (about 0.3 s of one core at the default
 * PASSWORD_HASH_COST), so a few run at once, and no more: each holds one of libuv's threads
 * and 128·N·r bytes (32 MiB at the default cost) while it runs.
 */
import { availableParallelism } from 'node:os';
import type { HashCost } from '../../records/accounts/index.js';
import { hashPassword } from '../../records/accounts/index.js';
import type { Pending } from './record-line.js';

/** Hashes at once: one per core, up to the four threads of libuv's pool, which runs them. */
const HASHES_AT_ONCE = Math.max(1, Math.min(4, availableParallelism()));

/**
 * Hashes the plain-text password of each record of `batch` that has one, in place: its
 * `hash` is set and its `password` dropped. Resolves with how many it hashed.
 */
export async function hashPasswords(batch: readonly Pending[], cost: HashCost): Promise<number> {
  const waiting = batch.filter((pending) => pending.password !== undefined);
  let next = 0;
  const worker = async () => {
    for (let pending = waiting[next++]; pending; pending = waiting[next++]) {
      pending.hash = await hashPassword(pending.password ?? '', cost);
      pending.password = undefined;
    }
  };
  await Promise.all(Array.from({ length: Math.min(HASHES_AT_ONCE, waiting.length) }, worker));
  return waiting.length;
}
