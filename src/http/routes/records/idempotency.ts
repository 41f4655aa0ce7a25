/**
 * `Idempotency-Key` on creates (SPEC §7): the first request's outcome is kept in the
 * database with a fingerprint of the request, and a retry with the same key gets it again
 * instead of creating a second record.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CONFIG_DEFAULTS } from '../../../config/index.js';
import type { IdempotencyKeys, IdempotentCreate, StoredRecord } from '../../../store/store.js';
import { HttpProblem } from '../../problem.js';

export interface IdempotencyOptions {
  /** How long a key is remembered; at least 24 hours. */
  ttlMs: number;
  /** How often expired keys are swept. */
  sweepEveryMs: number;
  /**
   * After how long a claim that never completed is taken over: its process died before it
   * wrote anything (the record and the key's completion are one transaction).
   */
  staleAfterMs: number;
  /** Whose keys these are: keys of different callers never meet. */
  scopeOf: (request: FastifyRequest) => string;
}

export const DEFAULT_IDEMPOTENCY_OPTIONS: IdempotencyOptions = {
  ttlMs: CONFIG_DEFAULTS.idempotencyKeyHours * 60 * 60 * 1000,
  sweepEveryMs: 60 * 60 * 1000,
  staleAfterMs: 60 * 1000,
  scopeOf: () => 'anonymous',
};

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
  request: FastifyRequest,
  key: string,
  /** What identifies the request: its effective method, canonical path and body. */
  what: { method: string; path: string; body: string },
  options: IdempotencyOptions,
): Promise<IdempotentOutcome> {
  const scope = options.scopeOf(request);
  const token = randomUUID();
  const found = await keys.claim(scope, key, fingerprintOf(what), token, options.staleAfterMs);
  switch (found.state) {
    case 'claimed':
      return { kind: 'create', claim: { scope, key, token } };
    case 'done':
      return { kind: 'replay', record: found.record };
    case 'gone':
      throw new HttpProblem(
        'idempotent-record-gone',
        `This Idempotency-Key created record ${found.id} of ${found.collection}, which has since been deleted; ` +
          'its response is no longer kept. Send a new key to create another record.',
      );
    case 'running':
      throw new HttpProblem('idempotency-key-in-use', 'A request with this Idempotency-Key is still running.', {
        headers: { 'retry-after': '1' },
      });
    case 'mismatch':
      throw new HttpProblem(
        'idempotency-key-reused',
        'This Idempotency-Key was used for a request with another method, path or body.',
      );
  }
}

/** What a key remembers of its request, to tell a retry from another request under the same key. */
export function fingerprintOf(what: { method: string; path: string; body: string }): string {
  return createHash('sha256').update(`${what.method} ${what.path}\n${what.body}`).digest('hex');
}

/** The request's `Idempotency-Key` (a bare token or a structured-field "string"), or undefined. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header.join(',') : header;
  const key = /^"(.*)"$/.exec(raw.trim())?.[1] ?? raw.trim();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new HttpProblem('invalid-idempotency-key', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
  }
  return key;
}

/** Sweeps expired keys now and then while the app runs (every instance may; it is idempotent). */
export function registerIdempotencySweep(app: FastifyInstance, keys: IdempotencyKeys, options: IdempotencyOptions) {
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    keys.sweep(new Date(Date.now() - options.ttlMs)).then(
      (count) => {
        if (count > 0) app.log.info({ count }, 'expired idempotency keys swept');
      },
      (error: unknown) => app.log.warn({ err: error }, 'sweeping idempotency keys failed; trying again later'),
    );
  };
  app.addHook('onReady', async () => {
    sweep();
    timer = setInterval(sweep, options.sweepEveryMs).unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
