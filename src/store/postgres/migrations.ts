/**
 * Versioned schema changes for PostgreSQL, applied in order on start. All of them run in
 * one transaction that first takes an advisory lock, so that ten instances starting
 * together migrate once: the first does the work, the others wait, then find it done.
 */
import type { PoolClient } from 'pg';
import { MAX_ID } from '../store.js';

export interface PostgresMigration {
  version: number;
  name: string;
  up(client: PoolClient, collections: readonly string[]): Promise<void>;
}

/**
 * RFC 7396 JSON Merge Patch on jsonb. No longer called: it cost record keys × patch keys
 * (one jsonb_set per key), so merges now run in the application (src/store/merge-patch.ts).
 * Kept so that migration 1 stays what it was for databases it already ran on.
 */
const MERGE_PATCH_FUNCTION = `
  CREATE OR REPLACE FUNCTION restock_merge_patch(target jsonb, patch jsonb) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
  DECLARE
    result jsonb;
    item record;
  BEGIN
    IF jsonb_typeof(patch) IS DISTINCT FROM 'object' THEN
      RETURN patch;
    END IF;
    result := CASE WHEN jsonb_typeof(target) = 'object' THEN target ELSE '{}'::jsonb END;
    FOR item IN SELECT key, value FROM jsonb_each(patch) LOOP
      IF jsonb_typeof(item.value) = 'null' THEN
        result := result - item.key;
      ELSE
        result := jsonb_set(result, ARRAY[item.key], restock_merge_patch(result -> item.key, item.value));
      END IF;
    END LOOP;
    RETURN result;
  END
  $$`;

/**
 * The time as the API shows it (RFC 3339, UTC, milliseconds). Timestamps are stored in
 * this form, as on SQLite, so that they sort and filter as the same strings on both stores.
 */
const NOW_FUNCTION = `
  CREATE OR REPLACE FUNCTION restock_now() RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  $$`;

/**
 * The table of one collection: an identity that is never handed out again, also after a
 * delete; jsonb so that filters and sorts can reach into records.
 */
function collectionTableSql(table: string): string {
  return `
    CREATE TABLE IF NOT EXISTS "${table}" (
      id         bigint  GENERATED ALWAYS AS IDENTITY (MAXVALUE ${MAX_ID}) PRIMARY KEY,
      data       jsonb   NOT NULL CHECK (jsonb_typeof(data) = 'object'),
      version    integer NOT NULL DEFAULT 1,
      created_at text    NOT NULL DEFAULT restock_now(),
      updated_at text    NOT NULL DEFAULT restock_now()
    )`;
}

export const migrations: readonly PostgresMigration[] = [
  {
    version: 1,
    // The tables of the collections of the time; every start now makes any that are missing.
    name: 'collections',
    async up(client, collections) {
      await client.query(MERGE_PATCH_FUNCTION);
      await client.query(NOW_FUNCTION);
      for (const table of collections) await client.query(collectionTableSql(table));
    },
  },
  {
    version: 2,
    name: 'idempotency keys',
    async up(client) {
      await client.query(`
        CREATE TABLE idempotency_keys (
          scope       text        NOT NULL,
          key         text        NOT NULL,
          fingerprint text        NOT NULL,
          token       text        NOT NULL,
          state       text        NOT NULL CHECK (state IN ('running', 'done')),
          collection  text,
          record      text,
          claimed_at  timestamptz NOT NULL DEFAULT now(),
          created_at  timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (scope, key)
        )`);
      await client.query('CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)');
    },
  },
  {
    version: 3,
    name: 'idempotency keys by record',
    // Which record a key created, so that deleting the record can drop the copy the key keeps.
    async up(client) {
      await client.query('ALTER TABLE idempotency_keys ADD COLUMN record_id bigint');
      await client.query(
        `UPDATE idempotency_keys SET record_id = (record::jsonb ->> 'id')::bigint WHERE record IS NOT NULL`,
      );
      await client.query('CREATE INDEX idempotency_keys_by_record ON idempotency_keys (collection, record_id)');
    },
  },
  {
    version: 4,
    name: 'ids within 2^53',
    async up(client, collections) {
      // An id above 2^53 - 1 would reach clients as a neighbour's (JSON numbers are doubles):
      // the identity stops there, and nextval past it fails (SQLSTATE 2200H), writing nothing.
      // A table whose identity is already beyond it keeps going as it was.
      for (const table of collections) {
        const { rows } = await client.query<{ fits: boolean }>(
          `SELECT COALESCE(pg_sequence_last_value(pg_get_serial_sequence($1, 'id')::regclass), 0) <= $2 AS fits`,
          [`"${table}"`, MAX_ID],
        );
        if (rows[0]?.fits) await client.query(`ALTER TABLE "${table}" ALTER COLUMN id SET MAXVALUE ${MAX_ID}`);
      }
    },
  },
];

/** Any fixed number, the same in every instance: the key of the migration lock. */
const MIGRATION_LOCK = 0x7265_7374; // "rest"

/**
 * Brings the database up to the newest version, makes the table of every collection that
 * has none (a collection added since the database was made), then runs `setup` (the
 * configured indexes), all in one transaction under the same lock, so that instances
 * starting together never race on DDL; returns the versions applied. A table whose
 * collection is no longer served stays, with its records.
 */
export async function migrate(
  client: PoolClient,
  collections: readonly string[],
  setup: (client: PoolClient) => Promise<void> = async () => {},
): Promise<number[]> {
  const applied: number[] = [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text        NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((row) => row.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await migration.up(client, collections);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    for (const table of collections) await client.query(collectionTableSql(table));
    await setup(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  return applied;
}
