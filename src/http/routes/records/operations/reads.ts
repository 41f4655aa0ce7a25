/**
 * The reads of a collection over HTTP: the request parsed into a read's input, the read
 * itself (src/records/operations/reads.ts: rules, expand, pages), its result as the reply.
 */
import { etagOf } from '../../../../records/conditional.js';
import { nextPage } from '../../../../records/list-page.js';
import type { RawListQuery } from '../../../../records/list-query.js';
import { readList, readRecord } from '../../../../records/operations/index.js';
import { JSON_TYPE } from '../../../../records/render.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import { prefers } from '../prefer.js';
import { IdParamsShape, listQueryShape, type ReadQuery, readQueryShape } from '../request-shapes.js';
import type { OperationContext } from './context.js';

export function listOperation({ kit }: OperationContext): Operation {
  return {
    schema: { querystring: listQueryShape(kit.referenceNames) },
    async handler(request, reply) {
      const counted = prefers(request, 'count', 'exact');
      const raw = request.query as RawListQuery;
      const page = await readList(kit, callerOf(request), { raw, counted, holder: holderOf(request) });
      if (page.cursor !== undefined) {
        reply.header('link', `<${nextPage(request.url, kit.paths.collection, page.cursor)}>; rel="next"`);
      }
      if (page.total !== undefined) {
        reply.header('x-total-count', String(page.total)).header('preference-applied', 'count=exact');
      }
      return reply.type(JSON_TYPE).send(`[${page.records.join(',')}]`);
    },
  };
}

export function readOperation({ kit, idOf }: OperationContext): Operation {
  return {
    schema: { params: IdParamsShape, querystring: readQueryShape(kit.referenceNames) },
    async handler(request, reply) {
      const id = idOf(request);
      const asked = { expand: (request.query as ReadQuery).expand, ifNoneMatch: request.headers['if-none-match'] };
      const read = await readRecord(kit, callerOf(request), id, asked);
      const sent = reply.header('etag', etagOf(read.record));
      if (read.kind === 'not-modified') return sent.code(304).send();
      return sent.code(200).type(JSON_TYPE).send(read.text);
    },
  };
}
