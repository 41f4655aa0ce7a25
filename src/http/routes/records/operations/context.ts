/**
 * What every operation of one collection's routes shares: its record kit (src/records/operations/:
 * its records, rules, checks, limits and names, made once per collection from the catalog)
 * and what only a request has: its id in the path, its Idempotency-Key and change feed
 * plumbing. Made once per collection by ../collection-routes.ts.
 */
import type { FastifyRequest } from 'fastify';
import { recordIdOf } from '../../../../core/record-id.js';
import type { RecordKit } from '../../../../records/operations/index.js';
import type { IdParams } from '../request-shapes.js';
import type { CollectionRoutesOptions } from '../routes-options.js';

export interface OperationContext {
  /** What its reads and writes are readied with, a batch's operations on it included. */
  readonly kit: RecordKit;
  readonly options: CollectionRoutesOptions;
  /** The record id of an item path; anything but a positive integer names no record (404). */
  idOf(request: FastifyRequest): number;
}

export function operationContext(options: CollectionRoutesOptions): OperationContext {
  const { kit } = options;
  return {
    kit,
    options,
    idOf(request) {
      const raw = (request.params as IdParams).id;
      const id = recordIdOf(raw);
      if (id === undefined) throw kit.notFound(raw);
      return id;
    },
  };
}
