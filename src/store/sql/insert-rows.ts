/**
 * Multi-row INSERTs, for writes of many records at once (createMany, restore), cut in
 * chunks that stay far below every database's limit on parameters.
 */
import type { SqlDialect } from './dialect.js';
import type { Sql } from './program.js';

/** Rows per INSERT of a batch (createMany, restore): far below every database's parameter limit. */
const ROWS_PER_INSERT = 1000;

/** A multi-row INSERT (`head` VALUES … `tail`) of `rows`, each row's values as `row` writes them through `param`. */
export function insertRows<T>(
  dialect: SqlDialect,
  [head, tail]: [string, string],
  rows: readonly T[],
  row: (item: T, param: (value: unknown) => string) => string,
): Sql {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return dialect.placeholder(values.length);
  };
  const tuples = rows.map((item) => `(${row(item, param)})`);
  return { text: `${head} VALUES ${tuples.join(', ')}${tail}`, values };
}

export function* chunked<T>(items: readonly T[]): Generator<readonly T[]> {
  for (let at = 0; at < items.length; at += ROWS_PER_INSERT) yield items.slice(at, at + ROWS_PER_INSERT);
}
