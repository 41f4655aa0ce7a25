/**
 * The index `q=` search reads on PostgreSQL: a function giving a record's strings, folded
 * as search folds them, one a line, and per collection a GIN trigram index (pg_trgm) on it,
 * which PostgreSQL keeps inside every write's own transaction. A search then reads only the
 * records whose text has every trigram of its needle, and checks those exactly (search in
 * postgres-dialect.ts).
 */
import type { PoolClient } from 'pg';
import { searchIndexName } from '../sql/dialect.js';

/** The SQL function of a record's search text. */
export const SEARCH_TEXT_FUNCTION = 'restock_search_text';

/**
 * Makes the search text function and each collection's index, under the migration lock.
 * Without pg_trgm (not installed, or not allowed to this user) search works unindexed, and
 * `warn` says so once. An index over a large table takes a while to build, once: the
 * statement budget is lifted for it.
 */
export async function syncSearchIndexes(
  client: PoolClient,
  collections: readonly string[],
  fold: (text: string) => string,
  warn: (message: string) => void,
): Promise<void> {
  await client.query(`
    CREATE OR REPLACE FUNCTION ${SEARCH_TEXT_FUNCTION}(data jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(string_agg(${fold("(v #>> '{}')")}, E'\\n'), '')
      FROM jsonb_path_query(data, 'strict $.**') AS v WHERE jsonb_typeof(v) = 'string'
    $$`);
  await client.query('SAVEPOINT trigrams');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await client.query('RELEASE SAVEPOINT trigrams');
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT trigrams');
    warn(`q= search is not indexed: pg_trgm cannot be enabled (${(error as Error).message})`);
    return;
  }
  await client.query('SET LOCAL statement_timeout = 0');
  for (const table of collections) {
    await client.query(
      `CREATE INDEX IF NOT EXISTS "${searchIndexName(table)}" ON "${table}" ` +
        `USING gin (${SEARCH_TEXT_FUNCTION}(data) gin_trgm_ops)`,
    );
  }
}
