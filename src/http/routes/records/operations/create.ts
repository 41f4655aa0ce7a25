/**
 * A create: one record from a JSON object (or a multipart body with its files), or many from
 * an array (all or none), with an `Idempotency-Key` replayed rather than run twice. What a create does is
 * src/records/operations/'s (record-writes.ts), as a batch's create is; here is the
 * request turned into its input, and its result into the reply.
 */
import type { FastifyReply } from 'fastify';
import { discardStaged } from '../../../../records/files/index.js';
import { createRecord } from '../../../../records/operations/index.js';
import type { StoredRecord } from '../../../../store/store.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { objectBody } from '../../../plugins/json-body.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import { requestKeyOf } from '../idempotency.js';
import { isBulk, sendCreated, sendRecord } from '../record-response.js';
import type { OperationContext } from './context.js';
import { isMultipart, readMultipart } from './multipart-body.js';

export function createOperation({ kit, options }: OperationContext): Operation {
  const created = (reply: FastifyReply, record: StoredRecord | StoredRecord[]) =>
    Array.isArray(record)
      ? sendCreated(reply, record)
      : sendRecord(reply.header('location', kit.paths.item(record.id)), 201, record);

  return {
    async handler(request, reply) {
      const multipart = isMultipart(request) ? await readMultipart(request, kit, options.bodyLimits) : undefined;
      try {
        const done = await createRecord(kit, {
          caller: callerOf(request),
          holder: holderOf(request),
          method: request.method,
          body: multipart?.body ?? (isBulk(request) ? request.body : objectBody(request.body)),
          key: requestKeyOf(request, options.idempotencyKeys, options.idempotency),
          ...(multipart && { uploads: multipart.uploads }),
        });
        if (done.kind === 'replay') return created(reply.header('idempotent-replayed', 'true'), done.record);
        return created(reply, done.result);
      } finally {
        if (multipart) await discardStaged(multipart.uploads);
      }
    },
  };
}
