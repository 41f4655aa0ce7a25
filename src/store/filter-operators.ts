/**
 * Every filter operator (`field[op]=value`), declared once: how its value is read from a
 * query, which values it refuses, and what it means, as the test JavaScript applies (for the
 * change feed and the record rules). The query parser (src/records/list-query.ts), the one
 * evaluator of conditions (src/records/rules/filter-holds.ts) and the OpenAPI document read
 * this table; only the SQL
 * (src/store/sql/list-terms.ts) and the client's types are written beside it.
 *
 * Comparisons are typed: a number only ever equals or orders against numbers, a string
 * against strings (by Unicode code point), so `price[gt]=5` never matches the string "50".
 * `eq null` matches a null or missing field.
 */

/** A JSON value a filter compares with. */
export type JsonScalar = string | number | boolean | null;

interface OperatorRules {
  /**
   * Whether an index on the field finds exactly its matches, as one range of the index: a
   * list filtered by it alone, on an indexed field, reads no row it does not return.
   */
  seeks?: true;
  /** Why null cannot be its value, if it cannot. */
  refusesNull?: string;
  /** Why it cannot apply to ids (numbers), if it cannot. */
  refusesIds?: string;
}

/**
 * An operator: how the query's text becomes its value (a JSON scalar, a comma-separated
 * list of them, or the text as written), and whether a record's value (undefined: the field
 * is missing) meets it.
 */
export type FilterOperator = OperatorRules &
  (
    | { reads: 'scalar' | 'text'; holds(value: unknown, wanted: JsonScalar): boolean }
    | { reads: 'list'; holds(value: unknown, wanted: readonly JsonScalar[]): boolean }
  );

const NO_ORDER = 'null has no order; use field=null or field[ne]=null';

/** Ordered comparisons, by the sign of `value` against `wanted`. */
const ordered = (test: (comparison: number) => boolean): FilterOperator => ({
  reads: 'scalar',
  seeks: true,
  refusesNull: NO_ORDER,
  holds: (value, wanted) => order(value, wanted, test),
});

export const FILTER_OPERATORS = {
  eq: { reads: 'scalar', seeks: true, holds: (value, wanted) => same(value, wanted) },
  ne: { reads: 'scalar', holds: (value, wanted) => !same(value, wanted) },
  lt: ordered((c) => c < 0),
  lte: ordered((c) => c <= 0),
  gt: ordered((c) => c > 0),
  gte: ordered((c) => c >= 0),
  in: { reads: 'list', holds: (value, wanted) => wanted.some((item) => same(value, item)) },
  contains: {
    reads: 'scalar',
    refusesIds: 'looks for text or an array element, and ids are numbers',
    holds(value, wanted) {
      const needle = typeof wanted === 'string' ? wanted : JSON.stringify(wanted);
      if (typeof value === 'string') return value.includes(needle);
      return Array.isArray(value) && value.some((item) => same(item, wanted));
    },
  },
  startsWith: {
    reads: 'text',
    refusesIds: 'compares text, and ids are numbers',
    holds: (value, wanted) => typeof value === 'string' && value.startsWith(String(wanted)),
  },
} satisfies Record<string, FilterOperator>;

/** How a filter compares. */
export type FilterOp = keyof typeof FILTER_OPERATORS;

export const OPERATORS = Object.keys(FILTER_OPERATORS) as readonly FilterOp[];

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
