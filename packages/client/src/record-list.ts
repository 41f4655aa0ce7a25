/**
 * A list's pages, and the records of all of them: `for await (const r of products.list(q))`
 * reads every record page after page, following restock's `Link: rel="next"`; `.pages()`
 * gives each page with its cursor and, when the query asked to `count`, the total.
 */
import { cursorOf, nextLink } from './list-query.js';
import type { Stored } from './stored.js';
import type { RequestOptions } from './transport.js';

/** A page of records, and where the next one is: records `S`, of type `T` as its query shaped them. */
export interface Page<T, S = Stored<T>> {
  records: S[];
  /** The next page's URL, absent on the last page. */
  next?: string;
  /** The next page's cursor (the `cursor` of `next`): pass it as the query's `cursor` to read on. */
  cursor?: string;
  /** How many records the whole query selects (`X-Total-Count`), when the query asked to `count`. */
  total?: number;
}

/** Reads the page at `target` (a path with its query string, or a `next` URL). */
export type ReadPage = (target: string, options: RequestOptions & { count?: boolean }) => Promise<Response>;

/** The page a list answer holds. */
export async function pageOf<T, S = Stored<T>>(response: Response): Promise<Page<T, S>> {
  const next = nextLink(response.headers.get('link'));
  const cursor = next === undefined ? undefined : cursorOf(next);
  const total = response.headers.get('x-total-count');
  return {
    records: (await response.json()) as S[],
    ...(next !== undefined && { next }),
    ...(cursor !== undefined && { cursor }),
    ...(total !== null && { total: Number(total) }),
  };
}

export class RecordList<T, S = Stored<T>> implements AsyncIterable<S> {
  readonly #read: ReadPage;
  readonly #first: string;
  readonly #options: RequestOptions & { count?: boolean };

  constructor(read: ReadPage, first: string, options: RequestOptions & { count?: boolean }) {
    this.#read = read;
    this.#first = first;
    this.#options = options;
  }

  /** Each page in turn; only the first is counted (the total is the query's, not the page's). */
  async *pages(): AsyncGenerator<Page<T, S>, void, undefined> {
    let page = await pageOf<T, S>(await this.#read(this.#first, this.#options));
    const { count: _count, ...rest } = this.#options;
    for (;;) {
      yield page;
      if (page.next === undefined) return;
      page = await pageOf<T, S>(await this.#read(page.next, rest));
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<S, void, undefined> {
    for await (const page of this.pages()) yield* page.records;
  }

  /** Every record, in one array (for lists known to be short). */
  async all(): Promise<S[]> {
    const records: S[] = [];
    for await (const record of this) records.push(record);
    return records;
  }
}
