/**
 * Prepared statements by their SQL, and reading their rows. List queries' shapes depend on
 * the filters and sort a client sends, so the cache is bounded: the oldest is dropped first.
 */
import type { Database, Statement } from 'better-sqlite3';

export function statementCache(db: Database, size = 256): (sql: string) => Statement {
  const cache = new Map<string, Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      cache.set(sql, statement);
    }
    return statement;
  };
}

type Row = Record<string, unknown>;

/**
 * The rows of a read; with `maxBytes`, read one at a time and stopped once their `data`
 * holds that many bytes (the row that reaches it included), so that a page of large
 * records is never all in memory at once.
 */
export function readRows(statement: Statement, params: Row, maxBytes?: number): Row[] {
  if (maxBytes === undefined) return statement.all(params) as Row[];
  const rows: Row[] = [];
  let bytes = 0;
  for (const row of statement.iterate(params) as IterableIterator<Row>) {
    rows.push(row);
    bytes += Buffer.byteLength(String(row.data ?? ''));
    if (bytes >= maxBytes) break;
  }
  return rows;
}
