/**
 * What the shared list-query builder needs from a SQL database: how it writes parameters,
 * paths into a JSON column, and the three expressions that compare a JSON value.
 *
 * Every value of a client field is compared through three expressions that are never
 * NULL, so that row-value comparisons and indexes work on them:
 * - rank: 0 null or missing, 1 number, 2 string, 3 boolean, 4 array, 5 object;
 * - number: the number (booleans 0 and 1), else 0;
 * - text: the string (arrays and objects: their JSON text), else '', by code point.
 * Sorting by (rank, number, text) gives the same order on every store, and a filter on
 * one type never matches another.
 */
import type { foldCase } from './case-fold.js';

export interface SqlDialect {
  /** The SQL for the `n`-th parameter (1-based). */
  placeholder(n: number): string;
  /**
   * A path into the `data` column: `literal` (an indexed field, whose text must match the
   * index's) or through a parameter added with `param`.
   */
  path(segments: readonly string[], param: (value: unknown) => string, literal: boolean): string;
  rank(path: string): string;
  number(path: string): string;
  text(path: string): string;
  /**
   * What a unique index on the value at `path` holds: its JSON type, and the value as
   * text (lower-cased ASCII for `ignoreCase` strings). Null and missing values give NULL,
   * which a unique index never counts as a duplicate.
   */
  uniqueTerms(path: string, ignoreCase: boolean): [string, string];
  /**
   * The field path a unique index holds, read back from its definition or from the
   * database's account of a violation of it; undefined when the text names none.
   */
  uniquePath(definition: string): string[] | undefined;
  /** The length in bytes (UTF-8) of a text expression. */
  byteLength(text: string): string;
  /** An aggregate of the ids of a group as text, comma-separated in id order. */
  idList(): string;
  /** Whether the text expression `haystack` contains the text parameter `needle`. */
  containsText(haystack: string, needle: string): string;
  /** Whether the array at `path` has an element equal to `value`. */
  arrayHas(path: string, value: string | number | boolean | null, param: (value: unknown) => string): string;
  /**
   * Whether some string anywhere in a record of `table`, its case folded as
   * {@link foldCase} does, contains `needle` (folded already), added with `param`. From
   * {@link SEARCH_INDEX_MIN_LENGTH} characters on, a trigram index narrows the records to
   * read; shorter needles read every record, and so does every needle when `indexed` is
   * false (a store kept without the index: SEARCH_INDEX).
   */
  search(table: string, needle: string, param: (value: unknown) => string, indexed?: boolean): string;
  /** Columns of the system fields. */
  readonly columns: { readonly id: string; readonly createdAt: string; readonly updatedAt: string };

  // What the core's writes need (sql-collection.ts, sql-idempotency.ts).
  /** The `data` column as JSON text, in a result. */
  readonly dataText: string;
  /**
   * A parameter of JSON object text as the `data` column takes it; `compact` makes it
   * compact first, every number kept digit for digit (a restore of any export).
   */
  json(param: string, compact: boolean): string;
  /** The time as records store it (RFC 3339, UTC, milliseconds): the database's, or a `now` parameter. */
  now(param: (name: 'now') => string): string;
  /** Whether the integer `column` is one of the list a parameter holds, written by {@link intList}. */
  inList(column: string, param: string): string;
  /** The value of an {@link inList} parameter. */
  intList(values: readonly number[]): unknown;
  /** What ends a SELECT to lock the rows it reads until the transaction ends ('' where writes lock all). */
  readonly forUpdate: string;
  /**
   * A row lock for a change that keeps the row's key (a merge): on PostgreSQL FOR NO KEY
   * UPDATE, which does not wait for the KEY SHARE locks that records naming the row hold
   * while they are written. With FOR UPDATE, two batches that each create an order for a
   * product and then change the product deadlock every time.
   */
  readonly forChange: string;
  /**
   * What ends a SELECT to keep the rows it reads from being deleted (or their ids changed)
   * until the transaction ends, without blocking other writes to them.
   */
  readonly forKeyShare: string;
  /**
   * What ends a SELECT of rows to claim (a queue's) to lock them and pass over those another
   * transaction holds ('' where writes take turns).
   */
  readonly skipLocked: string;
  /** What lets an INSERT give ids of its own (a restore). */
  readonly explicitIds: string;
  /** A statement to run after a restore gave ids of its own, so later creates go past them. */
  afterExplicitIds?(table: string): string;
  /**
   * A join that finds the rows of `table` (as `alias`) matching `on` by an index lookup for
   * each row before it, whatever the table's statistics say. (PostgreSQL, holding a young
   * table for tiny, scans it whole for every step of a recursive walk: the square of the depth.)
   */
  lookupJoin(table: string, alias: string, on: string): string;
  /** Idempotency keys' clock: `now`, and the moment a parameter's milliseconds before it (after it, when negative). */
  readonly keyClock: { readonly now: string; ago(ms: string): string };
}

/** Ranks of the JSON types, in sort order. */
export const RANK = { null: 0, number: 1, string: 2, boolean: 3, array: 4, object: 5 } as const;

/** The shortest needle a trigram index can look up: one trigram. */
export const SEARCH_INDEX_MIN_LENGTH = 3;

/** The name of the search index of a collection's table (an FTS5 table on SQLite, a GIN index on PostgreSQL). */
export function searchIndexName(table: string): string {
  return `${table}_search`;
}
