/**
 * `Idempotency-Key` over HTTP: a request's key and whose keys they are, and the sweep of
 * expired ones (what a key does is src/records/idempotency.ts's, and a write under one
 * src/records/operations/idempotent-write.ts's).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CONFIG_DEFAULTS } from '../../../config/index.js';
import type { RequestKey } from '../../../records/operations/index.js';
import type { IdempotencyKeys } from '../../../store/store.js';
import { holderOf } from '../../plugins/rate-limit/index.js';
import { registerSweep } from '../sweep.js';

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
  scopeOf: idempotencyScopeOf,
};

/**
 * Whose keys a request's are: its API key's or account's, else its client address's (its
 * rate limit budget's), so that keys sent by different callers never meet, two clients
 * without credentials included: neither replays, nor blocks, the other's request.
 */
export function idempotencyScopeOf(request: FastifyRequest): string {
  return holderOf(request).client;
}

/** The `Idempotency-Key` `request` sent, and whose keys it is among, for a create and a batch alike. */
export function requestKeyOf(request: FastifyRequest, keys: IdempotencyKeys, options: IdempotencyOptions): RequestKey {
  return {
    keys,
    header: request.headers['idempotency-key'],
    scope: () => options.scopeOf(request),
    staleAfterMs: options.staleAfterMs,
    releaseFailed: (error) => request.log.warn({ err: error }, 'could not release a key'),
  };
}

/** Sweeps expired keys now and then while the app runs. */
export function registerIdempotencySweep(app: FastifyInstance, keys: IdempotencyKeys, options: IdempotencyOptions) {
  registerSweep(app, 'idempotency keys', options.sweepEveryMs, () => keys.sweep(new Date(Date.now() - options.ttlMs)));
}
