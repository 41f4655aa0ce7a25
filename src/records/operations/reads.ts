/**
 * The reads of a collection, the same for every path that reads: a page of its records and
 * one record, each as `caller` may see them (the `list` rule a condition of the query, the
 * `view` rule on the record), with the records its references name embedded (`expand=`).
 * What comes in is the request's query already parsed by its route; what goes out is what
 * the reply sends.
 */
import type { StoredRecord } from '../../store/store.js';
import { noneMatchHits } from '../conditional.js';
import { encodeCursor } from '../cursor.js';
import { expand, expandPage, parseExpand, tooLarge, withExpand } from '../expand.js';
import type { Holder } from '../in-flight-gate.js';
import { readPage } from '../list-page.js';
import { parseListQuery, type RawListQuery } from '../list-query.js';
import { recordRenderer, renderRecord } from '../render.js';
import type { Caller } from '../rules/record-access.js';
import type { RecordKit } from './record-kit.js';

/** A page as its reply sends it. */
export interface ReadPage {
  /** Each record's JSON text, in order. */
  readonly records: readonly string[];
  /** The records the query finds in all, when asked. */
  readonly total?: number;
  /** The cursor of the next page, when records follow. */
  readonly cursor?: string;
}

/**
 * A page of the records `caller` may list, by the list query `raw`; `counted` asks for the
 * total too. A costly query (or a count) waits for its turn within `holder`'s share.
 */
export async function readList(
  kit: RecordKit,
  caller: Caller,
  { raw, counted, holder }: { raw: RawListQuery; counted: boolean; holder: Holder },
): Promise<ReadPage> {
  const { records, limits } = kit;
  const { query: asked, sortKey, fields } = parseListQuery(raw, limits.maxFieldNameLength, kit.queryFields);
  const expansions = parseExpand(raw.expand, kit.collection);
  // The rule is a condition of the query itself: a caller who may list nothing reads nothing.
  const query = kit.access.narrow(caller, asked);
  if (!query) return { records: [], ...(counted && { total: 0 }) };
  const read = () =>
    Promise.all([
      readPage(records, query, recordRenderer(fields), limits.maxPageBytes),
      counted ? records.count(query) : undefined,
    ]);
  const [page, total] =
    counted || (await records.isCostly(query)) ? await kit.costlyQueries.run(holder, read) : await read();
  await expandPage(page, expansions, kit.viewable(caller), limits.maxPageBytes);
  return {
    records: page.records,
    ...(total !== undefined && { total }),
    ...(page.more && page.last && { cursor: encodeCursor(page.last.position, sortKey) }),
  };
}

/** What a read of one record gives: the record unchanged since the client's copy, or its text. */
export type ReadRecord =
  | { readonly kind: 'not-modified'; readonly record: StoredRecord }
  | { readonly kind: 'record'; readonly record: StoredRecord; readonly text: string };

/**
 * Record `id`, if `caller` may see it (else the same 404 as a missing one); `notModified`
 * when `ifNoneMatch` names its version, else its text with `expand` embedded.
 */
export async function readRecord(
  kit: RecordKit,
  caller: Caller,
  id: number,
  { expand: asked, ifNoneMatch }: { expand: string | undefined; ifNoneMatch: string | undefined },
): Promise<ReadRecord> {
  const maxBytes = kit.limits.maxPageBytes;
  const expansions = parseExpand(asked, kit.collection);
  const record = await kit.records.get(id);
  if (!record || !kit.access.canView(caller, record)) throw kit.notFound(id);
  if (noneMatchHits(ifNoneMatch, record)) return { kind: 'not-modified', record };
  if (expansions.length === 0) return { kind: 'record', record, text: renderRecord(record) };
  // The ETag is the record's own: it says nothing of the records embedded in it.
  const expanded = await expand([record], expansions, kit.viewable(caller), maxBytes);
  if ((expanded.bytes[0] ?? 0) > maxBytes) throw tooLarge(maxBytes);
  return { kind: 'record', record, text: withExpand(renderRecord(record), expanded.text(0)) };
}
