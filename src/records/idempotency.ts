/**
 * `Idempotency-Key` on creates: the first request's outcome is kept in the database with a
 * fingerprint of the request, and a retry with the same key gets it again instead of
 * creating a second record. The HTTP layer says whose keys they are and sweeps old ones
 * (src/http/routes/records/idempotency.ts).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { IdempotencyKeys, IdempotentCreate, StoredRecord } from '../store/store.js';
import { Refusal } from './refusal.js';

/** What to do with a create that carries a key. */
export type IdempotentOutcome =
  | { kind: 'create'; claim: IdempotentCreate }
  | { kind: 'replay'; record: StoredRecord | StoredRecord[] };

/**
 * Looks the request's key up: a claim to go ahead with, or the stored record to replay.
 * A key still being processed is a 409, a key used with another payload a 422.
 */
export async function claimKey(
  keys: IdempotencyKeys,
  /** Whose key it is, and the key. */
  { scope, key }: { scope: string; key: string },
  /** What identifies the request. */
  what: RequestIdentity,
  /** After how long a claim that never completed is taken over. */
  staleAfterMs: number,
): Promise<IdempotentOutcome> {
  const token = randomUUID();
  const found = await keys.claim(scope, key, fingerprintOf(await keys.fingerprintKey(), what), token, staleAfterMs);
  switch (found.state) {
    case 'claimed':
      return { kind: 'create', claim: { scope, key, token } };
    case 'done':
      return { kind: 'replay', record: found.record };
    case 'gone':
      throw new Refusal(
        'idempotent-record-gone',
        `This Idempotency-Key created record ${found.id} of ${found.collection}, which has since been deleted; ` +
          'its response is no longer kept. Send a new key to create another record.',
      );
    case 'running':
      throw new Refusal('idempotency-key-in-use', 'A request with this Idempotency-Key is still running.', {
        retryAfter: 1,
      });
    case 'mismatch':
      throw new Refusal(
        'idempotency-key-reused',
        'This Idempotency-Key was used for a request with another method, path or body.',
      );
  }
}

/** What tells a retry from another request under the same key. */
export interface RequestIdentity {
  /** The effective method and the canonical path. */
  readonly method: string;
  readonly path: string;
  /** The body as written (a batch's as sent, its passwords in it). */
  readonly body: string;
  /** A create's password, taken out of `body`: a retry with another is another request. */
  readonly password?: string;
}

/**
 * What a key remembers of its request: an HMAC-SHA-256 of all of it under the server's
 * `key`, never the request itself. Keyed, because a request may carry a password: an
 * unkeyed hash of a body whose other fields are known would let whoever reads the
 * database try passwords against it.
 */
export function fingerprintOf(key: Buffer, what: RequestIdentity): string {
  const { method, path, body, password } = what;
  return createHmac('sha256', key)
    .update(JSON.stringify([method, path, body, password ?? null]))
    .digest('hex');
}

/** The key an `Idempotency-Key` header holds (a bare token or a structured-field "string"), or undefined. */
export function idempotencyKeyIn(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header.join(',') : header;
  const key = /^"(.*)"$/.exec(raw.trim())?.[1] ?? raw.trim();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new Refusal('invalid-idempotency-key', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
  }
  return key;
}
