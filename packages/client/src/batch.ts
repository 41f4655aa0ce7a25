/**
 * Batches: several operations on any collections sent as one `POST /batch/`, which restock
 * runs in order in one transaction, keeping all of them or none. Each operation is made by
 * a {@link BatchBuilder} bound to a collection, so its fields are checked as `create` and
 * `update` check them, and the answer is a tuple typed operation by operation. An operation
 * may use a field of an earlier one's result ({@link ref}): restock fills it in as it runs.
 */
import type { Patch, RecordId } from './collection.js';
import { type Problem, ProblemError } from './problem-error.js';
import type { FieldName, ValueAt } from './query-types.js';
import type { Creatable, Stored } from './stored.js';
import type { RequestOptions, Transport } from './transport.js';
import { ifMatchTag, remember } from './versions.js';

/**
 * A field of an earlier operation's result, where a value of type `V` goes: restock puts the
 * value there as the batch runs (`"$0.id"` on the wire).
 */
export class Reference<V> {
  /** Only for the type: what the field holds. */
  declare readonly value?: V;
  /** The operation, or its index in the batch. */
  readonly operation: BatchOperation<unknown> | number;
  /** The field, dotted for a nested one (`address.city`). */
  readonly field: string;

  constructor(operation: BatchOperation<unknown> | number, field: string) {
    this.operation = operation;
    this.field = field;
  }

  /** `$0.id` (a reference by operation has an index only within its batch: `$?.id`). */
  toString(): string {
    return `$${typeof this.operation === 'number' ? this.operation : '?'}.${this.field}`;
  }

  /** Only a batch writes a reference: anywhere else the server would keep it as text. */
  toJSON(): never {
    throw new TypeError(`a reference (${this}) stands for a value only in an operation of a batch`);
  }
}

/** A value of type `T`, or a reference to an earlier result's field of that type, at any depth. */
export type Referable<T> =
  | T
  | Reference<Exclude<T, undefined>>
  | (T extends readonly (infer E)[] ? Referable<E>[] : T extends object ? { [K in keyof T]: Referable<T[K]> } : never);

/** A record's fields as an operation's body takes them: each may be a {@link Reference}. */
export type ReferableFields<T> = { [K in keyof T]: Referable<T[K]> };

/** The record an operation names: an id, a record held, or an earlier result's id. */
export type BatchRecordId = RecordId | Reference<number>;

/** What an update or a delete in a batch takes. */
export interface BatchWriteOptions {
  /** Refuse the batch (`412`) unless the record is still this version: an ETag, or a record held (as `update` takes it). */
  ifMatch?: string | object;
}

/** One operation of a batch, whose result is a record of type `T`. */
export class BatchOperation<T> {
  /** Only for the type: the record the operation answers. */
  declare readonly record?: T;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The collection, by its plural. */
  readonly collection: string;
  readonly id: BatchRecordId | undefined;
  readonly body: object | undefined;
  readonly ifMatch: string | object | undefined;

  constructor(
    method: BatchOperation<T>['method'],
    collection: string,
    id?: BatchRecordId,
    body?: object,
    ifMatch?: string | object,
  ) {
    this.method = method;
    this.collection = collection;
    this.id = id;
    this.body = body;
    this.ifMatch = ifMatch;
  }
}

/** What an operation answered: its status (201 for a create, else 200), its record's ETag, and the record. */
export interface BatchResult<T> {
  status: 200 | 201;
  etag: string;
  /** A created record's address. */
  location?: string;
  /** The record: made, read, changed, or as it was before its delete. Its ETag is kept for `ifMatch`. */
  record: Stored<T>;
}

/** The results of the operations `Ops`, in their order and typed each by its own. */
export type BatchResults<Ops extends readonly unknown[]> = {
  -readonly [I in keyof Ops]: Ops[I] extends BatchOperation<infer T> ? BatchResult<T> : never;
};

export interface BatchOptions extends RequestOptions {
  /**
   * Makes a retry of a batch that writes safe: restock answers a repeated key with the first
   * answer. One is made when not given.
   */
  idempotencyKey?: string;
}

/**
 * A reference to `field` of an earlier operation's result: of `operation` (checked against
 * its record type), or of the operation at `index` (unchecked, so it fits any field).
 */
export function ref<T, P extends FieldName<T>>(
  operation: BatchOperation<T>,
  field: P,
): Reference<Exclude<ValueAt<Stored<T>, P>, undefined>>;
export function ref(index: number, field: string): Reference<never>;
export function ref(operation: BatchOperation<unknown> | number, field: string): Reference<unknown> {
  return new Reference(operation, field);
}

/** Makes the operations of a batch on the collections `C`, by plural, as the client types them. */
export class BatchBuilder<C> {
  /** A reference to a field of an earlier operation's result ({@link ref}). */
  readonly ref = ref;

  /** Creates one record. */
  create<K extends keyof C & string>(collection: K, fields: ReferableFields<Creatable<C[K]>>): BatchOperation<C[K]> {
    return new BatchOperation('POST', collection, undefined, fields as object);
  }

  /** Reads one record. */
  get<K extends keyof C & string>(collection: K, id: BatchRecordId): BatchOperation<C[K]> {
    return new BatchOperation('GET', collection, id);
  }

  /** Applies `patch` as a JSON Merge Patch. */
  update<K extends keyof C & string>(
    collection: K,
    id: BatchRecordId,
    patch: ReferableFields<Patch<C[K]>>,
    options: BatchWriteOptions = {},
  ): BatchOperation<C[K]> {
    return new BatchOperation('PATCH', collection, id, patch as object, options.ifMatch);
  }

  /** Deletes one record; its result is the record as it was. */
  delete<K extends keyof C & string>(
    collection: K,
    id: BatchRecordId,
    options: BatchWriteOptions = {},
  ): BatchOperation<C[K]> {
    return new BatchOperation('DELETE', collection, id, undefined, options.ifMatch);
  }
}

/** An operation as restock reads it. */
interface WireOperation {
  method: string;
  path: string;
  body?: unknown;
  ifMatch?: string;
}

interface WireResult {
  status: 200 | 201;
  headers: { etag: string; location?: string };
  body: Stored<unknown>;
}

/** Sends `operations` as one batch, and answers their results or throws the failing one's problem. */
export async function sendBatch(
  transport: Transport,
  operations: readonly BatchOperation<unknown>[],
  options: BatchOptions,
): Promise<BatchResult<unknown>[]> {
  const { idempotencyKey, ...request } = options;
  const sent: WireOperation[] = [];
  for (const [index, operation] of operations.entries()) {
    sent.push(await wireOperation(operation, index, operations, transport, request));
  }
  // A batch of reads is safe to repeat as it is; one that writes is, under its key.
  const writes = operations.some((operation) => operation.method !== 'GET');
  const headers: Record<string, string> =
    writes || idempotencyKey ? { 'idempotency-key': idempotencyKey ?? crypto.randomUUID() } : {};
  let response: Response;
  try {
    response = await transport.send('POST', '/batch/', { ...request, body: sent, headers, repeatable: true });
  } catch (error) {
    throw error instanceof ProblemError
      ? new ProblemError(error.problem, { operation: failedAt(error.problem) })
      : error;
  }
  return ((await response.json()) as WireResult[]).map(({ status, headers: { etag, location }, body }) => {
    remember(body, etag);
    return { status, etag, ...(location !== undefined && { location }), record: body };
  });
}

async function wireOperation(
  operation: BatchOperation<unknown>,
  index: number,
  operations: readonly BatchOperation<unknown>[],
  transport: Transport,
  request: RequestOptions,
): Promise<WireOperation> {
  const { method, collection, id, body, ifMatch } = operation;
  const reference = (value: Reference<unknown>) => referenceText(value, index, operations);
  const item =
    id === undefined ? '' : `${id instanceof Reference ? reference(id) : typeof id === 'number' ? id : id.id}/`;
  const wire: WireOperation = { method, path: `/${collection}/${item}` };
  if (body !== undefined) wire.body = written(body, reference);
  if (ifMatch !== undefined) {
    const read = async (recordId: number) => {
      const answer = await transport.send('GET', `/${collection}/${recordId}/`, { ...request, repeatable: true });
      const { updatedAt } = (await answer.json()) as { updatedAt?: unknown };
      return { updatedAt, etag: answer.headers.get('etag') ?? undefined };
    };
    try {
      wire.ifMatch = await ifMatchTag(ifMatch, read);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      throw new ProblemError(
        { ...error.problem, errors: [{ pointer: `/${index}/ifMatch`, message: error.message }] },
        { operation: index },
      );
    }
  }
  return wire;
}

/** `$<index>.<field>`: by operation, its place in this batch, which must be there. */
function referenceText(reference: Reference<unknown>, at: number, operations: readonly BatchOperation<unknown>[]) {
  const index = typeof reference.operation === 'number' ? reference.operation : operations.indexOf(reference.operation);
  if (index < 0) throw new TypeError(`operation ${at} refers to an operation that is not in the batch`);
  return `$${index}.${reference.field}`;
}

/**
 * A body as restock reads it: each reference as its `$N.field` text, and each string that
 * restock would take for one (`$0.id`, `$$0.id`) escaped with one more `$`, so text stays text.
 */
function written(value: unknown, reference: (value: Reference<unknown>) => string): unknown {
  if (value instanceof Reference) return reference(value);
  if (typeof value === 'string') return /^\$+(0|[1-9][0-9]{0,5})\./.test(value) ? `$${value}` : value;
  if (Array.isArray(value)) return value.map((item) => written(item, reference));
  if (value === null || typeof value !== 'object') return value;
  const prototype = Object.getPrototypeOf(value);
  // Other objects (a Date) are sent as JSON writes them.
  if (prototype !== Object.prototype && prototype !== null) return value;
  // fromEntries defines each field: one named __proto__ stays a field.
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, written(inner, reference)]));
}

/** The operation a batch's problem is about: the index its first pointer starts with (`/2/body/price`). */
function failedAt(problem: Problem): number | undefined {
  const match = /^\/(0|[1-9][0-9]*)(\/|$)/.exec(problem.errors?.[0]?.pointer ?? '');
  return match ? Number(match[1]) : undefined;
}
