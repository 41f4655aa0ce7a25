/**
 * Reading one page of a list within a byte budget (MAX_PAGE_BYTES): records are rendered as
 * they are read, and the page ends before the record that would take it past the budget
 * (never before its first record), so a page of large records is cut short and its next
 * link continues from the last record it holds.
 */
import type { ListedRecord, ListQuery, Records, StoredRecord } from '../store/store.js';

/** Records read by the first query of a page: a default page (100) in one query, plus one to see past it. */
const FIRST_READ = 101;

export interface Page {
  /** The page's records, each as `render` wrote it. */
  records: string[];
  /** The records themselves, in the same order. */
  rows: ListedRecord[];
  /** The last record of the page, where a next page continues. */
  last?: ListedRecord;
  /** Whether records follow the page. */
  more: boolean;
}

/**
 * Reads the page `query` asks for (`query.limit` records at most) within `maxBytes`. Reads
 * in rounds, so that a page of large records never holds many more of them in memory than
 * it sends: the first reads at most {@link FIRST_READ} records; each later one as many as
 * the budget left would take at the mean size so far (at most twice the round before),
 * and one more, to see whether records follow.
 */
export async function readPage(
  collection: Records,
  query: ListQuery,
  render: (record: StoredRecord) => string,
  maxBytes: number,
): Promise<Page> {
  const parts: string[] = [];
  const kept: ListedRecord[] = [];
  let bytes = 2; // a JSON array's brackets
  let last: ListedRecord | undefined;
  const page = (more: boolean): Page => ({ records: parts, rows: kept, last, more });
  let round: ListQuery = query;
  let size = Math.min(query.limit + 1, FIRST_READ);
  for (;;) {
    // The database also stops the round at the budget left, so that large records are never
    // held many at a time; a round it cut holds at least that many bytes of data.
    // (At least one byte: a page already at the budget still reads one record, to learn
    // whether any follows.)
    const budget = Math.max(1, maxBytes - bytes);
    const rows = await collection.list({ ...round, limit: size, maxBytes: budget });
    if (rows.length === 0) return page(false);
    const cut = rows.reduce((sum, row) => sum + Buffer.byteLength(row.data), 0) >= budget;
    for (const row of rows) {
      if (parts.length === query.limit) return page(true);
      const text = render(row);
      const grown = bytes + Buffer.byteLength(text) + (parts.length > 0 ? 1 : 0);
      if (parts.length > 0 && grown > maxBytes) return page(true);
      parts.push(text);
      kept.push(row);
      bytes = grown;
      last = row;
    }
    if ((rows.length < size && !cut) || !last) return page(false);
    const fit = Math.ceil((maxBytes - bytes) / (bytes / parts.length));
    size = Math.min(query.limit - parts.length, Math.max(fit, 1), 2 * size) + 1;
    // The next round continues after the last record read (keyset), whatever `offset` said.
    round = { ...query, offset: undefined, after: last.position };
  }
}

/** The link to the next page: the same query (filters, sort, limit…) from `cursor` on. */
export function nextPage(requestUrl: string, collectionPath: string, cursor: string): string {
  const query = new URLSearchParams(requestUrl.split('?')[1] ?? '');
  query.delete('cursor');
  query.delete('offset');
  query.set('cursor', cursor);
  return `${collectionPath}?${query.toString()}`;
}
