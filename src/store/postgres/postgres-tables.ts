/**
 * PostgreSQL's DDL: restock's own tables and functions, by migration, and what each
 * collection's table needs, made on every start when missing (see ../sql/table-sync.ts,
 * which runs both under an advisory lock).
 */

import { searchIndexName } from '../sql/dialect.js';
import type { Migration, TableDdl } from '../sql/driver.js';
import { type Program, sql } from '../sql/program.js';
import { sharedMigrations } from '../sql/shared-migrations.js';
import { MAX_ID } from '../store.js';
import { syncChangeSequencer } from './change-sequencer.js';
import { createChangeInbox, syncChangeTriggers } from './change-triggers.js';
import { triggerOnce } from './trigger-once.js';

/**
 * The SQL function of a record's search text: its strings, folded as search folds them, one
 * a line. In PL/pgSQL, which keeps its plan for the session: a LANGUAGE sql function with
 * an aggregate cannot be inlined and was planned again for every row a write indexed
 * (214 µs of PostgreSQL's CPU per single-row INSERT, 96 µs in PL/pgSQL).
 */
export const SEARCH_TEXT_FUNCTION = 'restock_search_text';

/**
 * The table of one collection: an identity that is never handed out again, also after a
 * delete, and stops at 2^53 - 1 (an id above would reach clients as a neighbour's: JSON
 * numbers are doubles); jsonb, so that filters and sorts can reach into records.
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

const shared = sharedMigrations('bigint', 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY');

const migrations: readonly Migration[] = [
  {
    version: 1,
    // The tables of the collections of the time; every start now makes any that are missing.
    name: 'collections',
    *up(collections) {
      // The time as the API shows it (RFC 3339, UTC, milliseconds), stored in this form as
      // on SQLite, so that timestamps sort and filter as the same strings on both stores.
      yield sql(`
        CREATE OR REPLACE FUNCTION restock_now() RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
          SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        $$`);
      for (const table of collections) yield sql(collectionTableSql(table));
    },
  },
  {
    version: 2,
    name: 'idempotency keys',
    *up() {
      yield sql(`
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
      yield sql('CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)');
    },
  },
  {
    version: 3,
    name: 'idempotency keys by record',
    // Which record a key created, so that deleting the record can drop the copy the key keeps.
    *up() {
      yield sql('ALTER TABLE idempotency_keys ADD COLUMN record_id bigint');
      yield sql(`UPDATE idempotency_keys SET record_id = (record::jsonb ->> 'id')::bigint WHERE record IS NOT NULL`);
      yield sql('CREATE INDEX idempotency_keys_by_record ON idempotency_keys (collection, record_id)');
    },
  },
  {
    version: 4,
    name: 'ids within 2^53',
    // Tables made before their DDL had MAXVALUE; one whose identity is already beyond it keeps going.
    *up(collections) {
      for (const table of collections) {
        const fits = yield sql(
          `SELECT 1 FROM pg_class WHERE relname = '${table}' AND relnamespace = current_schema()::regnamespace
           AND COALESCE(pg_sequence_last_value(pg_get_serial_sequence('"${table}"', 'id')::regclass), 0) <= ${MAX_ID}`,
        );
        if (fits.rows.length > 0) yield sql(`ALTER TABLE "${table}" ALTER COLUMN id SET MAXVALUE ${MAX_ID}`);
      }
    },
  },
  {
    version: 5,
    name: 'no merge function',
    // Merges run in the application (src/store/merge-patch.ts): the SQL one cost record keys × patch keys.
    *up() {
      yield sql('DROP FUNCTION IF EXISTS restock_merge_patch(jsonb, jsonb)');
    },
  },
  { version: 6, ...shared.references },
  { version: 7, ...shared.changeLog },
  {
    version: 8,
    name: 'change inbox',
    up: () => createChangeInbox(),
  },
  { version: 9, ...shared.accounts },
  {
    version: 10,
    name: 'change inbox by transaction',
    // Each change knows its transaction, so that a move takes a transaction's changes whole
    // (./change-sequencer.ts): a batch's or a bulk create's events reach a feed all at once.
    *up() {
      yield sql('ALTER TABLE change_inbox ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id()');
    },
  },
  { version: 11, ...shared.serverSecrets },
  { version: 12, ...shared.accountFlows },
  { version: 13, ...shared.fileReaper },
  { version: 14, ...shared.webhooks },
];

/**
 * The DDL of a server whose lower() folds case through `fold` (ICU, or a table of code
 * points: see postgres-dialect.ts); `warn` says once that search runs unindexed.
 */
export function postgresTables(fold: (text: string) => string, warn: (message: string) => void): TableDdl {
  return {
    migrations,
    syncCollections: (collections, searchIndex) => syncCollections(collections, searchIndex, fold, warn),
    listIndexes: (collections) => ({
      text: `SELECT tablename AS "table", indexname AS name, indexdef LIKE 'CREATE UNIQUE %' AS "unique"
             FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1)`,
      values: [collections],
    }),
  };
}

function* syncCollections(
  collections: readonly string[],
  searchIndex: boolean,
  fold: (text: string) => string,
  warn: (message: string) => void,
): Program<void> {
  for (const table of collections) yield sql(collectionTableSql(table));
  // A deleted record's copy kept by the Idempotency-Key that created it goes with it.
  yield sql(`
    CREATE OR REPLACE FUNCTION restock_forget_keys() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      UPDATE idempotency_keys SET record = NULL WHERE collection = TG_TABLE_NAME AND record_id = OLD.id;
      UPDATE idempotency_keys SET record = NULL, record_id = OLD.id WHERE collection = TG_TABLE_NAME
        AND record_id IS NULL AND record LIKE '%{"id":' || OLD.id || ',%';
      RETURN NULL;
    END $$`);
  for (const table of collections) {
    const definition = `AFTER DELETE ON "${table}" FOR EACH ROW EXECUTE FUNCTION restock_forget_keys()`;
    yield* triggerOnce(table, `${table}_forget_keys`, definition);
  }
  yield* syncChangeTriggers(collections);
  yield* syncChangeSequencer();
  if (searchIndex) yield* syncSearchIndexes(collections, fold, warn);
  else for (const table of collections) yield sql(`DROP INDEX IF EXISTS "${searchIndexName(table)}"`);
}

/**
 * The index `q=` search reads: a GIN trigram index (pg_trgm) per collection on the record's
 * search text, which PostgreSQL keeps inside every write's own transaction. Without pg_trgm
 * (not installed, or not allowed to this user) search works unindexed. An index over a
 * large table takes a while to build, once: the statement budget is lifted for it.
 */
function* syncSearchIndexes(
  collections: readonly string[],
  fold: (text: string) => string,
  warn: (message: string) => void,
): Program<void> {
  yield sql(`
    CREATE OR REPLACE FUNCTION ${SEARCH_TEXT_FUNCTION}(data jsonb) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$ BEGIN
      RETURN (SELECT coalesce(string_agg(${fold("(v #>> '{}')")}, E'\\n'), '')
      FROM jsonb_path_query(data, 'strict $.**') AS v WHERE jsonb_typeof(v) = 'string');
    END $$`);
  yield sql('SAVEPOINT trigrams');
  try {
    yield sql('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    yield sql('RELEASE SAVEPOINT trigrams');
  } catch (error) {
    yield sql('ROLLBACK TO SAVEPOINT trigrams');
    warn(`q= search is not indexed: pg_trgm cannot be enabled (${(error as Error).message})`);
    return;
  }
  yield sql('SET LOCAL statement_timeout = 0');
  for (const table of collections) {
    yield sql(
      `CREATE INDEX IF NOT EXISTS "${searchIndexName(table)}" ON "${table}" ` +
        `USING gin (${SEARCH_TEXT_FUNCTION}(data) gin_trgm_ops)`,
    );
  }
}
