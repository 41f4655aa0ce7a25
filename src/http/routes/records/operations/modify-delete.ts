/**
 * A change (a JSON Merge Patch of the record, or a multipart body with files) and a delete, each with its `If-Match` and the
 * collection's rules checked on the record as it is, in the write's own transaction: the
 * conditions a batch's change and delete get too (src/records/operations/).
 */
import type { FastifyReply } from 'fastify';
import { discardStaged } from '../../../../records/files/index.js';
import { changeRecord, removeRecord } from '../../../../records/operations/index.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { objectBody } from '../../../plugins/json-body.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import { prefers } from '../prefer.js';
import { sendRecord } from '../record-response.js';
import { IdParamsShape } from '../request-shapes.js';
import type { OperationContext } from './context.js';
import { isMultipart, readMultipart } from './multipart-body.js';

export function modifyOperation({ kit, idOf, options }: OperationContext): Operation {
  return {
    schema: { params: IdParamsShape },
    async handler(request, reply) {
      const writer = { caller: callerOf(request), holder: holderOf(request) };
      const id = idOf(request);
      const multipart = isMultipart(request) ? await readMultipart(request, kit, options.bodyLimits) : undefined;
      try {
        const ifMatch = request.headers['if-match'];
        const change = { ifMatch, body: multipart?.body ?? objectBody(request.body), uploads: multipart?.uploads };
        return sendRecord(reply, 200, await changeRecord(kit, writer, id, change));
      } finally {
        if (multipart) await discardStaged(multipart.uploads);
      }
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
