/**
 * The terms a list's query shares between its two forms, the shorthand (./list-query.ts)
 * and `?filter=` (./list-filter.ts), and the list rules' compiler (./rules/list-rule.ts):
 * a field name read as a {@link FieldRef}, and an id's bound held to what ids are.
 */
import { isSystemField } from '../core/system-fields.js';
import type { FieldRef, FilterOp } from '../store/store.js';
import { type QueryFields, unknownField } from './query-fields.js';
import { invalidQuery as invalid } from './refusal.js';

/** What a field name in a query must keep to: each part's length, and the fields the collection may have. */
export interface Names {
  maxLength: number;
  fields: QueryFields;
}

/**
 * The integer that selects the same ids as `value` with `op`. Ids are positive integers
 * below 2^53, and PostgreSQL's bigint takes neither a fraction nor anything beyond 2^63, so
 * a number is first held to 0…2^53 (`id[gt]=-1e308` then matches every record, `id=1e20`
 * none), and a fraction is rounded the way the comparison wants (`id[gt]=1.5` is
 * `id[gt]=1`); no id equals a fraction, nor 0.
 */
export function idBound(op: FilterOp, value: number): number {
  const held = Math.min(Math.max(value, 0), Number.MAX_SAFE_INTEGER + 1);
  if (Number.isInteger(held)) return held;
  if (op === 'gt' || op === 'lte') return Math.floor(held);
  if (op === 'lt' || op === 'gte') return Math.ceil(held);
  return 0;
}

/** A dotted field name as a {@link FieldRef}; system fields are not paths. */
export function fieldRef(name: string, parameter: string, { maxLength, fields }: Names): FieldRef {
  if (isSystemField(name)) return name as FieldRef;
  const path = name.split('.');
  for (const segment of path) {
    if (segment === '') throw invalid(parameter, `"${name}" is not a field name (empty part between dots)`);
    if (segment.length > maxLength) throw invalid(parameter, `field names are at most ${maxLength} characters`);
    // A double quote, a backslash or a control character cannot be written in every database's JSON path.
    if (/["\\\p{Cc}]/u.test(segment)) throw invalid(parameter, `"${name}" has a character fields cannot be queried by`);
  }
  if (isSystemField(path[0] as string)) {
    throw invalid(parameter, `${path[0]} has no fields inside it`);
  }
  const unknown = unknownField(fields, name, parameter);
  if (unknown) throw unknown;
  return { path };
}
