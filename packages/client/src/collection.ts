/** The operations on one collection: read, list, create, change, delete, follow. */
import { type ChangeEvent, followFeed, type SubscribeOptions } from './change-stream.js';
import { bodyOf, type FileUrlOptions, filePath, type WithUploads } from './files.js';
import { type ListQuery, queryString, type ReadQuery } from './list-query.js';
import type { ExpandName, FieldName, Filter } from './query-types.js';
import type { Embeds, ReadRecord } from './read-types.js';
import { type Page, pageOf, RecordList } from './record-list.js';
import type { Creatable, FilesOf, Stored, SystemFields, Writable } from './stored.js';
import type { RequestOptions, Transport } from './transport.js';
import { etagOf, ifMatchTag, remember } from './versions.js';

/** A JSON Merge Patch of `T`: fields given replace, `null` removes one, absent ones stay. */
export type Patch<T> = { [K in keyof Writable<T>]?: Writable<T>[K] | null };

/** A record as a change names it: by id, or the record itself. */
export type RecordId = number | Pick<SystemFields, 'id'>;

export interface WriteOptions extends RequestOptions {
  /**
   * Refuse the change (`412`) unless the record is still this version: an ETag, or a record
   * held (read by id, listed, or a copy of one; see versions.ts for how its version is found).
   */
  ifMatch?: string | object;
}

export interface CreateOptions extends RequestOptions {
  /** Makes a retry safe: restock answers a repeated key with the first answer. One is made when not given. */
  idempotencyKey?: string;
}

/** What a read of one record takes: `fields`, `expand`, a signal and a timeout. */
export type GetOptions<T, R> = ReadQuery<T, R> & RequestOptions;

/** What a list takes: the query, a signal and a timeout. */
export type ListOptions<T, R> = ListQuery<T, R> & RequestOptions;

/** The `fields` (`F`) and `expand` (`X`) a read names, kept as written to type what it answers. */
type Shaped<F, X> = { fields?: readonly F[]; expand?: readonly X[] };

/**
 * The operations on the collection of records `T`, whose references `R` (name to collection)
 * `expand` may embed, each as a record of type `E[name]`.
 */
export class CollectionClient<
  T extends object,
  R = Record<string, string>,
  E extends Embeds<R> = { [N in keyof R]: Record<string, unknown> },
> {
  readonly #transport: Transport;
  readonly name: string;

  constructor(transport: Transport, name: string) {
    this.#transport = transport;
    this.name = name;
  }

  /** restock answers the plural for single records and for create as for the singular. */
  #path(id?: RecordId): string {
    return id === undefined ? `/${this.name}/` : `/${this.name}/${typeof id === 'number' ? id : id.id}/`;
  }

  /** One record, with only `fields` if given, and the records its `expand` references name embedded. */
  async get<F extends FieldName<T> = never, X extends ExpandName<R> = never>(
    id: number,
    options: GetOptions<T, R> & Shaped<F, X> = {},
  ): Promise<ReadRecord<T, R, E, F, X>> {
    const { fields, expand, ...request } = options;
    const target = `${this.#path(id)}${queryString({ ...(expand && { expand }) })}`;
    const record = await this.#one(await this.#transport.send('GET', target, { ...request, repeatable: true }));
    if (fields === undefined) return record as ReadRecord<T, R, E, F, X>;
    // restock's read of one record takes no `fields=` (a list does): picked here, as a list picks them.
    const picked = pickFields(record, fields, expand);
    remember(picked, etagOf(record) ?? null);
    return picked as ReadRecord<T, R, E, F, X>;
  }

  /** One page (the first, or the one a `cursor` names), with its cursor and, when asked to `count`, the total. */
  async page<F extends FieldName<T> = never, X extends ExpandName<R> = never>(
    query: ListOptions<T, R> & Shaped<F, X> = {},
  ): Promise<Page<T, ReadRecord<T, R, E, F, X>>> {
    const { signal, timeout, count } = query;
    return pageOf<T, ReadRecord<T, R, E, F, X>>(
      await this.#readPage(`${this.#path()}${queryString(query)}`, { signal, timeout, count }),
    );
  }

  /**
   * Every record the query selects: `for await (const record of list(query))`, page after
   * page through restock's `Link`; `.pages()` gives the pages themselves, `.all()` an array.
   */
  list<F extends FieldName<T> = never, X extends ExpandName<R> = never>(
    query: ListOptions<T, R> & Shaped<F, X> = {},
  ): RecordList<T, ReadRecord<T, R, E, F, X>> {
    const { signal, timeout, count } = query;
    const first = `${this.#path()}${queryString(query)}`;
    return new RecordList<T, ReadRecord<T, R, E, F, X>>((target, options) => this.#readPage(target, options), first, {
      signal,
      timeout,
      count,
    });
  }

  #readPage(target: string, { count, ...options }: RequestOptions & { count?: boolean | undefined }) {
    const headers: Record<string, string> = count ? { prefer: 'count=exact' } : {};
    return this.#transport.send('GET', target, { ...defined(options), headers, repeatable: true });
  }

  /**
   * Creates a record, or (given an array) all of them in one transaction, or none (a
   * ProblemError then points at the failing items). An Idempotency-Key, made here unless
   * given, makes a retry after a lost answer or a 5xx safe: restock replays the first answer
   * instead of creating twice.
   */
  create(fields: WithUploads<Creatable<T>, T>, options?: CreateOptions): Promise<Stored<T>>;
  create(records: readonly Creatable<T>[], options?: CreateOptions): Promise<Stored<T>[]>;
  async create(
    fields: WithUploads<Creatable<T>, T> | readonly Creatable<T>[],
    options: CreateOptions = {},
  ): Promise<Stored<T> | Stored<T>[]> {
    const { idempotencyKey, ...request } = options;
    const headers = { 'idempotency-key': idempotencyKey ?? crypto.randomUUID() };
    const body = Array.isArray(fields) ? fields : bodyOf(fields);
    const response = await this.#transport.send('POST', this.#path(), { ...request, body, headers, repeatable: true });
    return Array.isArray(fields) ? ((await response.json()) as Stored<T>[]) : this.#one(response);
  }

  /** Creates all of `records` in one transaction, or none: `create` given an array. */
  createMany(records: readonly Creatable<T>[], options: CreateOptions = {}): Promise<Stored<T>[]> {
    return this.create(records, options);
  }

  /** Applies `patch` as a JSON Merge Patch, atomically, and answers the record after it. */
  async update(id: RecordId, patch: WithUploads<Patch<T>, T>, options: WriteOptions = {}): Promise<Stored<T>> {
    const { ifMatch, ...request } = options;
    const headers = await this.#condition(ifMatch, request);
    const body = bodyOf(patch);
    return this.#one(await this.#transport.send('PUT', this.#path(id), { ...request, body, headers }));
  }

  /** A record's file's download URL; `token` from `auth().fileToken()` for `<img src>`. */
  fileUrl(
    record: Pick<SystemFields, 'id'>,
    field: [FilesOf<T>] extends [never] ? string : FilesOf<T>,
    options: FileUrlOptions = {},
  ): string | undefined {
    const path = filePath(this.#path(record), record, field, options);
    return path && this.#transport.url(path).href;
  }

  /** Deletes a record and answers it as it was. */
  async delete(id: RecordId, options: WriteOptions = {}): Promise<Stored<T>> {
    const { ifMatch, ...request } = options;
    const headers = await this.#condition(ifMatch, request);
    return this.#one(await this.#transport.send('DELETE', this.#path(id), { ...request, headers }));
  }

  /**
   * The collection's changes as they commit, in order, from the next one (or after `since`),
   * reconnecting when the connection breaks: it resumes after the last change the loop has
   * seen, so none is missed or repeated; a `reset` says the feed could not go back that far.
   * Stop with `break` or `signal`. `filter` is a list's: by field, or an expression
   * (a string, or one built with `where`), sent as `?filter=`.
   */
  subscribe(
    options: SubscribeOptions & { filter?: Filter<T> | string } = {},
  ): AsyncGenerator<ChangeEvent<T>, void, undefined> {
    const path = `/${this.name}/events/${queryString({ ...(options.filter !== undefined && { filter: options.filter }) })}`;
    return followFeed<T>(this.#transport, path, options);
  }

  async #condition(version: WriteOptions['ifMatch'], request: RequestOptions): Promise<Record<string, string>> {
    if (version === undefined) return {};
    const read = async (id: number) => {
      const response = await this.#transport.send('GET', this.#path(id), { ...request, repeatable: true });
      const { updatedAt } = (await response.json()) as { updatedAt?: unknown };
      return { updatedAt, etag: response.headers.get('etag') ?? undefined };
    };
    return { 'if-match': await ifMatchTag(version, read) };
  }

  async #one(response: Response): Promise<Stored<T>> {
    const record = (await response.json()) as Stored<T>;
    remember(record, response.headers.get('etag'));
    return record;
  }
}

/** `record` with only `fields` (dotted paths), besides its id and what `expand` embedded. */
function pickFields(record: object, fields: readonly string[], expand: readonly unknown[] | undefined): object {
  const picked: Record<string, unknown> = { id: (record as SystemFields).id };
  for (const path of fields) {
    const steps = path.split('.');
    let value: unknown = record;
    for (const step of steps) {
      const found = value !== null && typeof value === 'object' && Object.hasOwn(value, step);
      value = found ? (value as Record<string, unknown>)[step] : undefined;
      if (!found) break;
    }
    if (value === undefined) continue;
    let target = picked;
    for (const step of steps.slice(0, -1)) {
      target[step] ??= {};
      target = target[step] as Record<string, unknown>;
    }
    target[steps.at(-1) as string] = value;
  }
  if (expand !== undefined && 'expand' in record) picked.expand = record.expand;
  return picked;
}

/** `options` without its undefined members. */
function defined<O extends object>(options: O): O {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as O;
}
