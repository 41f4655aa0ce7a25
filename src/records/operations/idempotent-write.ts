/**
 * A write under an `Idempotency-Key`, the same for a create and a batch: the key claimed,
 * or the first outcome replayed; the write run with the claim, which it completes in its
 * own transaction; the claim released when the write fails, since nothing was written.
 */
import type { IdempotencyKeys, IdempotentCreate, StoredRecord } from '../../store/store.js';
import { claimKey, idempotencyKeyIn, type RequestIdentity } from '../idempotency.js';

/** What a write under a key gave: its own result, or the first request's, replayed. */
export type IdempotentResult<T> =
  | { kind: 'ran'; result: T }
  | { kind: 'replay'; record: StoredRecord | StoredRecord[] };

/** The `Idempotency-Key` a request sent, and where and whose its keys are. */
export interface RequestKey {
  readonly keys: IdempotencyKeys;
  /** The `Idempotency-Key` header as sent, if it was. */
  readonly header: string | string[] | undefined;
  /** Whose keys the request's are (asked only when it sends one). */
  scope(): string;
  /** After how long a claim that never completed is taken over. */
  readonly staleAfterMs: number;
  /** Hears a release that failed (the claim then goes stale on its own). */
  releaseFailed(error: unknown): void;
}

/** A request's key, and what tells a retry of it from another request (asked only when it sends a key). */
export interface IdempotencyOf extends RequestKey {
  what(): RequestIdentity;
}

export async function idempotently<T>(
  of: IdempotencyOf,
  write: (claim?: IdempotentCreate) => Promise<T>,
): Promise<IdempotentResult<T>> {
  const key = idempotencyKeyIn(of.header);
  if (key === undefined) return { kind: 'ran', result: await write() };
  const outcome = await claimKey(of.keys, { scope: of.scope(), key }, of.what(), of.staleAfterMs);
  if (outcome.kind === 'replay') return outcome;
  const { claim } = outcome;
  try {
    return { kind: 'ran', result: await write(claim) };
  } catch (error) {
    // Nothing was written: let a retry run again rather than wait for the claim to go stale.
    await of.keys.release(claim.scope, claim.key, claim.token).catch(of.releaseFailed);
    throw error;
  }
}
