/**
 * Prepared statements by their SQL. List queries' shapes depend on the filters and sort a
 * client sends, so the cache is bounded: the oldest is dropped first.
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
