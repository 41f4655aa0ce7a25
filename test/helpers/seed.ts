/**
 * Filling a collection straight through the database, for suites whose subject is reading
 * many or large records, not writing them: a statement instead of thousands of requests.
 * The server has made the tables; the store's own triggers (search index, change log) run.
 */
import pg from 'pg';
import { openConnection } from '../../src/store/sqlite/connection.js';
import { catalogOf } from './catalog.js';
import type { TestDatabase, TestStoreKind } from './stores.js';

/** Each record's `data`, as an expression of the row number `i` in each database's SQL. */
export interface RecordExpressions {
  sqlite: string;
  postgres: string;
}

/** Inserts `count` records of `table`, numbered from 1 as `i`, into `database` of `kind`. */
export async function insertRecords(
  kind: TestStoreKind['name'],
  database: TestDatabase,
  table: string,
  count: number,
  data: RecordExpressions,
): Promise<void> {
  if (kind === 'sqlite') {
    // restock's own connection: the search index's triggers call its functions.
    const db = openConnection(database.url.slice('sqlite:'.length), catalogOf(['users', 'products']));
    try {
      db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
        INSERT INTO ${table} (data, created_at, updated_at)
        SELECT ${data.sqlite}, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(`INSERT INTO ${table} (data) SELECT ${data.postgres} FROM generate_series(1, ${count}) i`);
    await client.query(`ANALYZE ${table}`);
  } finally {
    await client.end();
  }
}
