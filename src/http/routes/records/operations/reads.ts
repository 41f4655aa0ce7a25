/** The reads of a collection: a page of its records, and one record, each as the caller may see them. */
import { etagOf, noneMatchHits } from '../../../../records/conditional.js';
import { encodeCursor } from '../../../../records/cursor.js';
import { expand, expandPage, parseExpand, tooLarge, withExpand } from '../../../../records/expand.js';
import { nextPage, readPage } from '../../../../records/list-page.js';
import { parseListQuery, type RawListQuery } from '../../../../records/list-query.js';
import { JSON_TYPE, recordRenderer, renderRecord } from '../../../../records/render.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import { prefers } from '../prefer.js';
import { sendRecord } from '../record-response.js';
import { IdParamsShape, listQueryShape, type ReadQuery, readQueryShape } from '../request-shapes.js';
import type { OperationContext } from './context.js';

export function listOperation(context: OperationContext): Operation {
  const { collection, options, paths, referenceNames, access, queryFields } = context;
  const { records } = options;
  return {
    schema: { querystring: listQueryShape(referenceNames) },
    async handler(request, reply) {
      const raw = request.query as RawListQuery;
      const { query: asked, sortKey, fields } = parseListQuery(raw, options.maxFieldNameLength, queryFields);
      const caller = callerOf(request);
      const expansions = parseExpand(raw.expand, collection);
      const counted = prefers(request, 'count', 'exact');
      // The rule is a condition of the query itself: a caller who may list nothing reads nothing.
      const query = access.narrow(caller, asked);
      if (!query) {
        if (counted) reply.header('x-total-count', '0').header('preference-applied', 'count=exact');
        return reply.type(JSON_TYPE).send('[]');
      }
      const read = () =>
        Promise.all([
          readPage(records, query, recordRenderer(fields), options.maxPageBytes),
          counted ? records.count(query) : undefined,
        ]);
      const [page, total] =
        counted || (await records.isCostly(query))
          ? await options.costlyQueries.run(holderOf(request), read)
          : await read();
      await expandPage(page, expansions, options.viewable(caller), options.maxPageBytes);
      if (page.more && page.last) {
        reply.header(
          'link',
          `<${nextPage(request.url, paths.collection, encodeCursor(page.last.position, sortKey))}>; rel="next"`,
        );
      }
      if (total !== undefined) reply.header('x-total-count', String(total)).header('preference-applied', 'count=exact');
      return reply.type(JSON_TYPE).send(`[${page.records.join(',')}]`);
    },
  };
}

export function readOperation({ collection, options, referenceNames, access, idOf, notFound }: OperationContext) {
  const { records } = options;
  const read: Operation = {
    schema: { params: IdParamsShape, querystring: readQueryShape(referenceNames) },
    async handler(request, reply) {
      const id = idOf(request);
      const expansions = parseExpand((request.query as ReadQuery).expand, collection);
      const caller = callerOf(request);
      const record = await records.get(id);
      if (!record || !access.canView(caller, record)) throw notFound(id);
      if (noneMatchHits(request.headers['if-none-match'], record)) {
        return reply.code(304).header('etag', etagOf(record)).send();
      }
      if (expansions.length === 0) return sendRecord(reply, 200, record);
      // The ETag is the record's own: it says nothing of the records embedded in it.
      const expanded = await expand([record], expansions, options.viewable(caller), options.maxPageBytes);
      if ((expanded.bytes[0] ?? 0) > options.maxPageBytes) throw tooLarge(options.maxPageBytes);
      const text = withExpand(renderRecord(record), expanded.text(0));
      return reply.code(200).header('etag', etagOf(record)).type(JSON_TYPE).send(text);
    },
  };
  return read;
}
