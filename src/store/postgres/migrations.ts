/**
 * Versioned schema changes for PostgreSQL, applied in order on start. All of them run in
 * one transaction that first takes an advisory lock, so that ten instances starting
 * together migrate once: the first does the work, the others wait, then find it done.
 */
import type { PoolClient } from 'pg';

export interface PostgresMigration {
  version: number;
  name: string;
  up(client: PoolClient, collections: readonly string[]): Promise<void>;
}

/**
 * RFC 7396 JSON Merge Patch on jsonb. PostgreSQL has none built in (`||` merges only the
 * top level and keeps nulls), and no extension is assumed, so it is written here.
 * PL/pgSQL rather than SQL because a SQL function cannot call itself.
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

export const migrations: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'collections',
    async up(client, collections) {
      await client.query(MERGE_PATCH_FUNCTION);
      await client.query(NOW_FUNCTION);
      for (const table of collections) {
        // An identity that is never handed out again, also after a delete; jsonb so that
        // filters and sorts can reach into records.
        await client.query(`
          CREATE TABLE IF NOT EXISTS "${table}" (
            id         bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            data       jsonb   NOT NULL CHECK (jsonb_typeof(data) = 'object'),
            version    integer NOT NULL DEFAULT 1,
            created_at text    NOT NULL DEFAULT restock_now(),
            updated_at text    NOT NULL DEFAULT restock_now()
          )`);
      }
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
];

/** Any fixed number, the same in every instance: the key of the migration lock. */
const MIGRATION_LOCK = 0x7265_7374; // "rest"

/**
 * Brings the database up to the newest version, then runs `setup` (the configured
 * indexes) in the same transaction, under the same lock, so that instances starting
 * together never race on DDL; returns the versions applied.
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
    await setup(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  return applied;
}
