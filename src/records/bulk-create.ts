/**
 * A JSON array POSTed to a create path: every record created in one transaction, or none.
 * Whatever is wrong is one problem, each failure pointed at by its item's index (`/3/email`).
 */
import type { CollectionSchema } from '../core/collection-schema.js';
import { oversizedIndexedValue } from '../core/indexed-values.js';
import { isObject } from '../core/is-object.js';
import { withoutSystemFields } from '../core/system-fields.js';
import type { UniqueField } from '../core/unique-field.js';
import { type Records, type StoredRecord, UniqueViolationError } from '../store/store.js';
import { type FieldError, Refusal, type RefusalKind } from './refusal.js';

/** The fields whose values an index holds, and the most bytes such a value may have. */
export interface IndexedValues {
  paths: readonly (readonly string[])[];
  maxBytes: number;
}

export interface BulkCreateOptions {
  /** The collection's records, where a unique value already taken is looked for. */
  records: Records;
  schema?: CollectionSchema;
  maxRecordBytes: number;
  /** The most records one request may create (MAX_BULK_RECORDS). */
  maxRecords: number;
  /** The indexed and unique fields, and the most bytes a value of one may hold. */
  indexed: IndexedValues;
}

/** The records' texts, once every item is a valid record, none too large, no unique value twice. */
export function bulkRecords(items: readonly unknown[], options: BulkCreateOptions): string[] {
  if (items.length === 0) throw new Refusal('invalid-record', 'An empty array creates nothing.');
  if (items.length > options.maxRecords) {
    throw new Refusal(
      'too-many-records',
      `One request creates at most ${options.maxRecords} records (MAX_BULK_RECORDS); this one holds ${items.length}.`,
    );
  }
  const failures: Record<
    'invalid-record' | 'record-too-large' | 'indexed-value-too-large' | 'schema-violation',
    FieldError[]
  > = {
    'invalid-record': [],
    'record-too-large': [],
    'indexed-value-too-large': [],
    'schema-violation': [],
  };
  const texts = items.map((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      failures['invalid-record'].push({ pointer: `/${i}`, message: 'must be a JSON object' });
      return '';
    }
    const fields = withoutSystemFields(item as Record<string, unknown>);
    for (const { pointer, message } of options.schema?.check(fields) ?? []) {
      failures['schema-violation'].push({ pointer: `/${i}${pointer}`, message });
    }
    const oversized = oversizedIndexedValue(fields, options.indexed.paths, options.indexed.maxBytes);
    if (oversized) failures['indexed-value-too-large'].push({ ...oversized, pointer: `/${i}${oversized.pointer}` });
    const text = JSON.stringify(fields);
    const bytes = Buffer.byteLength(text);
    if (bytes > options.maxRecordBytes) {
      const message = `is ${bytes} bytes as compact JSON, more than the ${options.maxRecordBytes} this server keeps`;
      failures['record-too-large'].push({ pointer: `/${i}`, message });
    }
    return text;
  });
  for (const kind of ['invalid-record', 'record-too-large', 'indexed-value-too-large', 'schema-violation'] as const) {
    const errors = failures[kind];
    if (errors.length > 0) throw refusal(kind, errors);
  }
  const twice = (options.schema?.unique ?? []).flatMap((field) => sharedWithin(items, field));
  if (twice.length > 0) throw refusal('unique-conflict', twice);
  return texts;
}

/** Creates the records, answering a unique value already taken with the items that hold it. */
export async function createAll(
  texts: readonly string[],
  options: BulkCreateOptions,
  create: () => Promise<StoredRecord[]>,
): Promise<StoredRecord[]> {
  try {
    return await create();
  } catch (error) {
    if (!(error instanceof UniqueViolationError) || error.path.length === 0) throw error;
    const values = texts.map((text) => valueAt(JSON.parse(text), error.path));
    const taken = await options.records.list({
      where: [{ field: { path: error.path }, op: 'in', value: values.filter((v) => v !== undefined) }],
      sort: [],
      limit: texts.length,
    });
    const held = new Set(taken.map((record) => JSON.stringify(valueAt(JSON.parse(record.data), error.path))));
    const errors = values.flatMap((value, i) =>
      value !== undefined && held.has(JSON.stringify(value))
        ? [{ pointer: `/${i}/${error.path.join('/')}`, message: 'is already taken' }]
        : [],
    );
    if (errors.length === 0) throw error;
    throw refusal('unique-conflict', errors);
  }
}

function refusal(kind: RefusalKind, errors: FieldError[]): Refusal {
  const count = errors.length === 1 ? 'one problem' : `${errors.length} problems`;
  return new Refusal(kind, `Nothing was created: the records sent have ${count}.`, { errors });
}

/** The items that repeat an earlier item's value of a unique field. */
function sharedWithin(items: readonly unknown[], field: UniqueField): FieldError[] {
  const seen = new Map<string, number>();
  const errors: FieldError[] = [];
  items.forEach((item, i) => {
    const value = valueAt(item, field.path);
    if (value === undefined) return;
    const key = field.ignoreCase && typeof value === 'string' ? value.replace(/[A-Z]/g, (c) => c.toLowerCase()) : value;
    const text = JSON.stringify(key);
    const first = seen.get(text);
    if (first === undefined) seen.set(text, i);
    else errors.push({ pointer: `/${i}/${field.path.join('/')}`, message: `is also the value of item ${first}` });
  });
  return errors;
}

/** A scalar at `path` (what a unique index compares), or undefined for a missing field or null. */
function valueAt(value: unknown, path: readonly string[]): string | number | boolean | undefined {
  let at = value;
  for (const segment of path) {
    at = isObject(at) ? at[segment] : undefined;
  }
  return typeof at === 'string' || typeof at === 'number' || typeof at === 'boolean' ? at : undefined;
}
