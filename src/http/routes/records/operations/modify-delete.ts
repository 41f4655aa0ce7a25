/**
 * A change (a JSON Merge Patch of the record) and a delete, each with its `If-Match` and the
 * collection's rules checked on the record as it is, in the write's own transaction: the
 * conditions a batch's change and delete get too (src/records/operations/).
 */
import type { FastifyReply } from 'fastify';
import { changeRecord, removeRecord } from '../../../../records/operations/index.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { objectBody } from '../../../plugins/json-body.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import { prefers } from '../prefer.js';
import { sendRecord } from '../record-response.js';
import { IdParamsShape } from '../request-shapes.js';
import type { OperationContext } from './context.js';

export function modifyOperation({ kit, idOf }: OperationContext): Operation {
  return {
    schema: { params: IdParamsShape },
    async handler(request, reply) {
      const writer = { caller: callerOf(request), holder: holderOf(request) };
      const change = { ifMatch: request.headers['if-match'], body: objectBody(request.body) };
      return sendRecord(reply, 200, await changeRecord(kit, writer, idOf(request), change));
    },
  };
}

export function removeOperation({ kit, idOf }: OperationContext): Operation {
  return {
    schema: { params: IdParamsShape },
    async handler(request, reply: FastifyReply) {
      const id = idOf(request);
      const record = await removeRecord(kit, callerOf(request), id, request.headers['if-match']);
      if (prefers(request, 'return', 'minimal')) {
        return reply.code(204).header('preference-applied', 'return=minimal').send();
      }
      return sendRecord(reply, 200, record);
    },
  };
}
