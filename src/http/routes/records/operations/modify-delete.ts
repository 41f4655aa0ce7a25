/**
 * A change (a JSON Merge Patch of the record) and a delete, each with its `If-Match` and the
 * collection's rules checked on the record as it is, in the write's own transaction.
 */
import type { FastifyReply } from 'fastify';
import { ifMatchVersions } from '../../../../records/conditional.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { clientFields } from '../../../plugins/json-body.js';
import { prefers } from '../prefer.js';
import { sendRecord } from '../record-response.js';
import { IdParamsShape } from '../request-shapes.js';
import type { OperationContext } from './context.js';

export function modifyOperation(context: OperationContext): Operation {
  const { options, checks, access, idOf, notFound } = context;
  return {
    schema: { params: IdParamsShape },
    async handler(request, reply) {
      const id = idOf(request);
      // Parsed already: the store merges the object, without writing and reading it again.
      const { fields: patch, password } = context.password(clientFields(request.body));
      const ifVersion = ifMatchVersions(request.headers['if-match'], id);
      const guard = access.guard(callerOf(request), 'update', patch);
      const secret = password === undefined ? undefined : await context.hash(request, password);
      const record = await options.records.merge(id, patch, {
        ifVersion,
        check: checks.merged,
        maxBytes: options.maxRecordBytes,
        ...guard,
        ...(secret !== undefined && { secret }),
      });
      if (!record) throw notFound(id);
      return sendRecord(reply, 200, record);
    },
  };
}

export function removeOperation({ options, access, idOf, notFound }: OperationContext): Operation {
  return {
    schema: { params: IdParamsShape },
    async handler(request, reply: FastifyReply) {
      const id = idOf(request);
      const ifVersion = ifMatchVersions(request.headers['if-match'], id);
      const record = await options.records.remove(id, { ifVersion, ...access.guard(callerOf(request), 'delete') });
      if (!record) throw notFound(id);
      if (prefers(request, 'return', 'minimal')) {
        return reply.code(204).header('preference-applied', 'return=minimal').send();
      }
      return sendRecord(reply, 200, record);
    },
  };
}
