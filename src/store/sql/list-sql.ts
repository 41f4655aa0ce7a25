/**
 * A list query as SQL: the SELECT of one page (keyset or offset, cut at a byte budget) and
 * the SELECT that counts its matches, built from the terms of list-terms.ts.
 */
import { InvalidPositionError, type ListedRecord, type ListQuery, type Position, type SortKey } from '../store.js';
import type { SqlDialect } from './dialect.js';
import type { SqlWriter } from './engine.js';
import { Builder, type IsIndexed, type OrderTerm } from './list-terms.js';

/** A piece of SQL and the parameters it binds, in order. */
export interface SqlQuery {
  text: string;
  values: unknown[];
}

/** A position comes back from a client inside a cursor: it must fit the terms before it is bound. */
function checkPosition(terms: readonly OrderTerm[], position: Position): void {
  const fits =
    position.length === terms.length &&
    terms.every((term, i) => {
      const value = position[i];
      if (term.kind === 'string') return typeof value === 'string';
      return typeof value === 'number' && (term.kind === 'number' || Number.isSafeInteger(value));
    });
  if (!fits) throw new InvalidPositionError();
}

/**
 * The SELECT of one page: `columns` of each matching record, plus its position as columns
 * `p0`, `p1`, … (the sort terms, id last).
 */
export function selectPage(
  { dialect, adapter }: SqlWriter,
  isIndexed: IsIndexed,
  table: string,
  columns: string,
  query: ListQuery,
): SqlQuery & { positionColumns: number } {
  const builder = new Builder(dialect, isIndexed);
  const terms = builder.orderTerms(query.sort, query.where);
  const filters = builder.where(query, table);
  const positions = terms.map((term, i) => `${term.sql} AS p${i}`).join(', ');
  const limit = builder.param(query.limit);
  const select = (where: string[], orderFrom: number) =>
    `SELECT ${columns}, ${positions} FROM "${table}"${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}` +
    ` ORDER BY ${builder.orderBy(terms.slice(orderFrom))} LIMIT ${limit}`;
  const result = (text: string) => ({
    text: query.maxBytes === undefined ? text : cutAtBytes(text, query.maxBytes),
    values: builder.values,
    positionColumns: terms.length,
  });
  // The running size of the page's data in its own order; a record is kept while those
  // before it hold fewer than `maxBytes` bytes.
  function cutAtBytes(page: string, maxBytes: number): string {
    const order = terms.map((term, i) => `p${i}${term.descending ? ' DESC' : ''}`).join(', ');
    const size = dialect.byteLength('page.data');
    return (
      `SELECT * FROM (SELECT page.*, sum(${size}) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) - ${size} ` +
      `AS bytes_before FROM (${page}) page) sized WHERE bytes_before < ${builder.param(maxBytes)} ORDER BY ${order}`
    );
  }

  const { after } = query;
  if (!after) {
    const offset = query.offset ? ` OFFSET ${builder.param(query.offset)}` : '';
    return result(select(filters, 0) + offset);
  }
  checkPosition(terms, after);
  const indexed = query.sort.length === 1 && (query.sort[0]?.field === 'id' || isIndexedField(query.sort[0]?.field));
  if (adapter.seeksRowValues || terms.length === 1 || !indexed) {
    return result(select([...filters, builder.after(terms, after)], 0));
  }
  // SQLite seeks an index with a row value only on plain columns, not on the expressions
  // of a JSON field. So the rest of the order is read as one index range per term:
  // (t0 = v0 … and t[i] beyond v[i]) for i from the last term to the first; each part is a
  // seek, and sorting their few rows (at most limit each) costs the same at any depth.
  const parts = terms.map((_, i) => {
    const equal = terms.slice(0, i).map((term, j) => `${term.sql} = ${builder.param(after[j])}`);
    const term = terms[i] as OrderTerm;
    const beyond = `${term.sql} ${term.descending ? '<' : '>'} ${builder.param(after[i])}`;
    return `SELECT * FROM (${select([...filters, ...equal, beyond], i)})`;
  });
  const order = terms.map((term, i) => `p${i}${term.descending ? ' DESC' : ''}`).join(', ');
  return result(`SELECT * FROM (${parts.reverse().join(' UNION ALL ')}) ORDER BY ${order} LIMIT ${limit}`);

  function isIndexedField(field: SortKey['field'] | undefined): boolean {
    return typeof field === 'object' && isIndexed(field.path);
  }
}

/** The SELECT that counts what a query's filters, rule and search match. */
export function selectCount(
  dialect: SqlDialect,
  isIndexed: IsIndexed,
  table: string,
  query: Pick<ListQuery, 'where' | 'search' | 'rule'>,
): SqlQuery {
  const builder = new Builder(dialect, isIndexed);
  const where = builder.where(query, table);
  const text = `SELECT count(*) AS n FROM "${table}"${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return { text, values: builder.values };
}

/** A page row (the record's columns, then `p0…`) as a {@link ListedRecord}. */
export function listedRecord(row: Record<string, unknown>, positionColumns: number): ListedRecord {
  const position: (string | number)[] = [];
  for (let i = 0; i < positionColumns; i++) position.push(row[`p${i}`] as string | number);
  return {
    id: row.id as number,
    data: row.data as string,
    version: row.version as number,
    createdAt: row.createdAt as string,
    updatedAt: row.updatedAt as string,
    position,
  };
}
