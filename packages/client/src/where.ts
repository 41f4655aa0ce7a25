/**
 * Typed filter expressions: `and`, `or` and `not` over the shorthand filter's objects,
 * written as the text of restock's filter language (sent as `?filter=`). Their field names,
 * operators and values are checked against the record type `T` as a shorthand filter's are
 * (./query-types.ts), so a typo does not compile:
 *
 *     const w = where<Product>();
 *     products.list({ filter: w.or({ price: { gt: 100 }, stock: { gt: 0 } }, { category: 'toys' }) });
 *     // sends ?filter=((price > 100 && stock > 0) || category == "toys")
 *
 * An object holds when all its conditions do. The language has no `startsWith`, and
 * `contains` is for array fields only (`"x" in tags`): for text search, use the shorthand.
 */
import type { ExpressionFilter, Operators, Scalar } from './query-types.js';

declare const recordType: unique symbol;

/**
 * The text of a filter expression whose fields were checked against `T`: a `filter` of its
 * own. Only the builders make one (the brand exists in types alone), so a string written
 * by hand, whose fields nothing checked, is no clause.
 */
export type FilterText<T> = string & { readonly [recordType]: T };

/** What `and`, `or` and `not` take: an object of conditions that must all hold, or an expression built already. */
export type Clause<T> = ExpressionFilter<T> | FilterText<T>;

/** The builders of expressions over records of type `T`. */
export interface Where<T> {
  /** Every clause holds (with none, every record does). */
  and(...clauses: Clause<T>[]): FilterText<T>;
  /** Some clause holds (with none, no record does). */
  or(...clauses: Clause<T>[]): FilterText<T>;
  /** The clause does not hold. */
  not(clause: Clause<T>): FilterText<T>;
}

const SYMBOLS = { eq: '==', ne: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** A clause as the builders read it, whatever its record type. */
type AnyClause = string | Record<string, Scalar | Operators | undefined>;

const builders = {
  and: (...clauses: AnyClause[]) => join(clauses, '&&', 'true'),
  or: (...clauses: AnyClause[]) => join(clauses, '||', 'false'),
  not: (clause: AnyClause) => {
    const text = written(clause);
    return text.startsWith('(') ? `!${text}` : `!(${text})`;
  },
};

/** The builders of filter expressions for the record type `T`: `where<Product>().or(...)`. */
export function where<T>(): Where<T> {
  return builders as unknown as Where<T>;
}

function join(clauses: readonly AnyClause[], operator: '&&' | '||', empty: string): string {
  if (clauses.length === 0) return empty;
  return `(${clauses.map(written).join(` ${operator} `)})`;
}

/** A clause as the language writes it: one comparison, or more in parentheses. */
function written(clause: AnyClause): string {
  if (typeof clause === 'string') return clause;
  const terms = Object.entries(clause).flatMap(([field, condition]) =>
    condition === undefined ? [] : comparisons(field, condition),
  );
  if (terms.length === 0) return 'true';
  return terms.length === 1 ? (terms[0] as string) : `(${terms.join(' && ')})`;
}

function comparisons(field: string, condition: Scalar | Operators): string[] {
  if (condition === null || typeof condition !== 'object') return [`${field} == ${literal(condition)}`];
  return Object.entries(condition).flatMap(([operator, value]): string[] => {
    if (value === undefined) return [];
    if (operator === 'in') return [`${field} in [${(value as Scalar[]).map(literal).join(', ')}]`];
    if (operator === 'contains') return [`${literal(value as Scalar)} in ${field}`];
    const symbol = SYMBOLS[operator as keyof typeof SYMBOLS];
    if (symbol === undefined)
      throw new TypeError(`"${operator}" has no form in a filter expression; use the shorthand filter`);
    return [`${field} ${symbol} ${literal(value as Scalar)}`];
  });
}

/** A value as the language spells it: JSON's, which its strings and numbers follow. */
function literal(value: Scalar): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`${value} is no JSON number`);
  return JSON.stringify(value);
}
