/**
 * What a list asks of a store: filters, search, order, paging; in the store's own terms,
 * after a query string has been parsed into them (src/records/list-query.ts).
 */
import type { FilterOp, JsonScalar } from './filter-operators.js';
import type { StoredRecord } from './record-model.js';

export type { FilterOp, JsonScalar } from './filter-operators.js';

/** A field of a record: a system field, or a path into the client's fields (`["a","b"]` for `a.b`). */
export type FieldRef = 'id' | 'createdAt' | 'updatedAt' | { readonly path: readonly string[] };

/**
 * The most values one `in` condition may hold: the SQL compares each in a term of its own
 * (typed equality), and SQLite refuses an expression deeper than 1000 terms.
 */
export const MAX_IN_VALUES = 100;

export interface Condition {
  readonly field: FieldRef;
  readonly op: FilterOp;
  /** A list for `in`; the text to look for with `contains` on strings and `startsWith`. */
  readonly value: JsonScalar | readonly JsonScalar[];
}

/**
 * Conditions joined by and, or and not: what a record rule (`x-rules`) leaves of a list
 * once the caller's values are put in (src/records/rules/list-rule.ts), where it is more
 * than conditions that must all hold. Each leaf is written as a filter is, its value a
 * parameter.
 */
export type RuleFilter =
  | Condition
  | { readonly and: readonly RuleFilter[] }
  | { readonly or: readonly RuleFilter[] }
  | { readonly not: RuleFilter };

export interface SortKey {
  readonly field: FieldRef;
  readonly descending: boolean;
}

/**
 * Where a page ends, in a form only the store that made it understands: the values the
 * sort compares for the last record, its id last. JSON-safe, so that it fits in a cursor.
 */
export type Position = readonly (string | number)[];

/** Which records to read, in which order, from where. */
export interface ListQuery {
  /** All must hold. */
  readonly where: readonly Condition[];
  /** Must hold too: a record rule's conditions that are not all-must-hold (those are in `where`). */
  readonly rule?: RuleFilter;
  /** Text that some string value of the record must contain, ignoring case. */
  readonly search?: string;
  /** Most significant first; ties are broken by id, in the direction of the last key. Empty: by id. */
  readonly sort: readonly SortKey[];
  readonly limit: number;
  /** Records to skip from the start (with no `after`). */
  readonly offset?: number;
  /** Only records after this one, in the same sort: keyset paging, stable under writes. */
  readonly after?: Position;
  /**
   * Only records whose predecessors in the page hold fewer than this many bytes of data (at
   * least one record): the database cuts a page of large records, so that memory holds
   * about this much, not `limit` of them.
   */
  readonly maxBytes?: number;
}

/** A listed record, with the position a next page continues from. */
export interface ListedRecord extends StoredRecord {
  position: Position;
}
