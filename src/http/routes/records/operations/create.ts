/**
 * A create: one record from a JSON object, or many from an array (all or none), with an
 * `Idempotency-Key` replayed rather than run twice. What a create does is
 * src/records/operations/'s (record-writes.ts), as a batch's create is; here is the
 * request turned into its input, and its result into the reply.
 */
import type { FastifyReply } from 'fastify';
import { createRecord } from '../../../../records/operations/index.js';
import type { StoredRecord } from '../../../../store/store.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { objectBody } from '../../../plugins/json-body.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import { requestKeyOf } from '../idempotency.js';
import { isBulk, sendCreated, sendRecord } from '../record-response.js';
import type { OperationContext } from './context.js';

export function createOperation({ kit, options }: OperationContext): Operation {
  const created = (reply: FastifyReply, record: StoredRecord | StoredRecord[]) =>
    Array.isArray(record)
      ? sendCreated(reply, record)
      : sendRecord(reply.header('location', kit.paths.item(record.id)), 201, record);

  return {
    async handler(request, reply) {
      const done = await createRecord(kit, {
        caller: callerOf(request),
        holder: holderOf(request),
        method: request.method,
        body: isBulk(request) ? request.body : objectBody(request.body),
        key: requestKeyOf(request, options.idempotencyKeys, options.idempotency),
      });
      if (done.kind === 'replay') return created(reply.header('idempotent-replayed', 'true'), done.record);
      return created(reply, done.result);
    },
  };
}
