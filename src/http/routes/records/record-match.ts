/**
 * Whether a record matches a list's filters, decided in JavaScript the way the SQL core
 * decides it in the database (src/store/sql/list-terms.ts): comparisons are typed (a number
 * never equals or orders against a string), text compares by code point, `eq null` matches
 * a null or missing field, `contains` finds text in a string or an element in an array. The
 * change feed filters its events with it, since they never pass through a query.
 */
import type { Condition, FieldRef, JsonScalar, StoredRecord } from '../../../store/store.js';

type Fields = Record<string, unknown>;

/** Whether `record` (its fields parsed as `fields`) meets every condition. */
export function matches(record: StoredRecord, fields: Fields, conditions: readonly Condition[]): boolean {
  return conditions.every((condition) => meets(valueAt(record, fields, condition.field), condition));
}

function valueAt(record: StoredRecord, fields: Fields, field: FieldRef): unknown {
  if (typeof field === 'string') return record[field];
  let at: unknown = fields;
  for (const segment of field.path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, segment)) return undefined;
    at = (at as Fields)[segment];
  }
  return at;
}

function meets(value: unknown, { op, value: wanted }: Condition): boolean {
  switch (op) {
    case 'in':
      return (wanted as readonly JsonScalar[]).some((item) => same(value, item));
    case 'eq':
      return same(value, wanted as JsonScalar);
    case 'ne':
      return !same(value, wanted as JsonScalar);
    case 'lt':
      return order(value, wanted as JsonScalar, (c) => c < 0);
    case 'lte':
      return order(value, wanted as JsonScalar, (c) => c <= 0);
    case 'gt':
      return order(value, wanted as JsonScalar, (c) => c > 0);
    case 'gte':
      return order(value, wanted as JsonScalar, (c) => c >= 0);
    case 'contains': {
      const needle = typeof wanted === 'string' ? wanted : JSON.stringify(wanted);
      if (typeof value === 'string') return value.includes(needle);
      return Array.isArray(value) && value.some((item) => same(item, wanted as JsonScalar));
    }
    case 'startsWith':
      return typeof value === 'string' && value.startsWith(String(wanted));
  }
}

/** Equality of a JSON value with a filter's typed value. */
function same(value: unknown, wanted: JsonScalar): boolean {
  if (wanted === null) return value === null || value === undefined;
  return typeof value === typeof wanted && value === wanted;
}

/** Whether `value` orders against `wanted` as `test` asks; only values of one type order. */
function order(value: unknown, wanted: JsonScalar, test: (comparison: number) => boolean): boolean {
  if (wanted === null || typeof value !== typeof wanted) return false;
  if (typeof wanted === 'string') return test(Buffer.compare(Buffer.from(value as string), Buffer.from(wanted)));
  return test(Number(value) - Number(wanted));
}
