/** The operations on one collection: read, list, create, change, delete, follow. */
import { type ChangeEvent, followFeed, type SubscribeOptions } from './change-stream.js';
import { type ListQuery, nextLink, queryString } from './list-query.js';
import type { Stored, SystemFields } from './stored.js';
import type { Transport } from './transport.js';

/** A JSON Merge Patch of `T`: fields given replace, `null` removes one, absent ones stay. */
export type Patch<T> = { [K in keyof T]?: T[K] | null };

/** A page of records, and where the next one is. */
export interface Page<T> {
  records: Stored<T>[];
  /** The next page's URL, absent on the last page. */
  next?: string;
}

/** The ETag each record was read with, for `ifMatch`. */
const etags = new WeakMap<object, string>();

/** The ETag `record` came with, if it came from a single-record response. */
export function etagOf(record: object): string | undefined {
  return etags.get(record);
}

export interface WriteOptions {
  /** Refuse the change (`412`) unless the record is still this version: an ETag, or a record read before. */
  ifMatch?: string | object;
}

export class CollectionClient<T extends object> {
  readonly #transport: Transport;
  readonly name: string;

  constructor(transport: Transport, name: string) {
    this.#transport = transport;
    this.name = name;
  }

  /** restock answers the plural for single records and for create as for the singular. */
  #path(id?: number | SystemFields): string {
    return id === undefined ? `/${this.name}/` : `/${this.name}/${typeof id === 'number' ? id : id.id}/`;
  }

  async get(id: number): Promise<Stored<T>> {
    return this.#one(await this.#transport.send('GET', this.#path(id), { repeatable: true }));
  }

  /** One page; pass a page's `next` to read the following one. */
  async page(query: ListQuery = {}, next?: string): Promise<Page<T>> {
    const target = next ?? `${this.#path()}${queryString(query)}`;
    const response = await this.#transport.send('GET', target, { repeatable: true });
    const following = nextLink(response.headers.get('link'));
    return { records: (await response.json()) as Stored<T>[], ...(following && { next: following }) };
  }

  /** Every record the query selects, page after page, following restock's `Link`. */
  async *list(query: ListQuery = {}): AsyncGenerator<Stored<T>, void, undefined> {
    let page = await this.page(query);
    for (;;) {
      yield* page.records;
      if (page.next === undefined) return;
      page = await this.page(query, page.next);
    }
  }

  /**
   * Creates a record. An Idempotency-Key (one made here unless given) makes a retry after a
   * lost answer or a 5xx safe: restock replays the first answer instead of creating twice.
   */
  async create(fields: T, options: { idempotencyKey?: string } = {}): Promise<Stored<T>> {
    const headers = { 'idempotency-key': options.idempotencyKey ?? crypto.randomUUID() };
    return this.#one(await this.#transport.send('POST', this.#path(), { body: fields, headers, repeatable: true }));
  }

  /** Creates all of `records` in one transaction, or none (a ProblemError points at the failing items). */
  async createMany(records: readonly T[], options: { idempotencyKey?: string } = {}): Promise<Stored<T>[]> {
    const headers = { 'idempotency-key': options.idempotencyKey ?? crypto.randomUUID() };
    const response = await this.#transport.send('POST', this.#path(), { body: records, headers, repeatable: true });
    return (await response.json()) as Stored<T>[];
  }

  /** Applies `patch` as a JSON Merge Patch, atomically, and answers the record after it. */
  async update(id: number | SystemFields, patch: Patch<T>, options: WriteOptions = {}): Promise<Stored<T>> {
    return this.#one(await this.#transport.send('PUT', this.#path(id), { body: patch, headers: ifMatch(options) }));
  }

  /** Deletes a record and answers it as it was. */
  async delete(id: number | SystemFields, options: WriteOptions = {}): Promise<Stored<T>> {
    return this.#one(await this.#transport.send('DELETE', this.#path(id), { headers: ifMatch(options) }));
  }

  /**
   * The collection's changes as they commit, in order, from the next one (or after `since`),
   * narrowed by `filter` as a list is. A broken connection is resumed after the last change
   * seen, so none is missed or repeated; a `reset` says the feed could not go back that far.
   * Stop with `break` or `signal`.
   */
  subscribe(
    options: SubscribeOptions & Pick<ListQuery, 'filter'> = {},
  ): AsyncGenerator<ChangeEvent<T>, void, undefined> {
    const path = `/${this.name}/events/${queryString({ ...(options.filter && { filter: options.filter }) })}`;
    return followFeed<T>(this.#transport, path, options);
  }

  async #one(response: Response): Promise<Stored<T>> {
    const record = (await response.json()) as Stored<T>;
    const etag = response.headers.get('etag');
    if (etag) etags.set(record, etag);
    return record;
  }
}

function ifMatch({ ifMatch: version }: WriteOptions): Record<string, string> {
  if (version === undefined) return {};
  const etag = typeof version === 'string' ? version : etagOf(version);
  if (etag === undefined) throw new TypeError('ifMatch: this record came without an ETag (read it by id first)');
  return { 'if-match': etag };
}
