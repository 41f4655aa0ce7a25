/**
 * The PostgreSQL store: node-postgres with a pool, each write a single statement (or one
 * short transaction) that is durable when it returns (`synchronous_commit = on`). No state
 * lives in the process, so any number of instances may share one database.
 */
import pg from 'pg';
import { mergedFields, versionMatches } from '../merge-patch.js';
import type { SqlDialect } from '../sql/dialect.js';
import { createIndexStatements, indexedIn, listedRecord, selectCount, selectPage } from '../sql/list-sql.js';
import { isCostly } from '../sql/query-cost.js';
import {
  createUniqueIndexSql,
  type DuplicateRow,
  dropIndexSql,
  type ExistingIndex,
  selectDuplicatesSql,
  staleUniqueIndexes,
  toDuplicate,
  uniqueIndexFailure,
  uniqueIndexName,
  uniqueViolation,
} from '../sql/unique-sql.js';
import {
  type Collection,
  collectionLookup,
  IdempotencyConflictError,
  IdsExhaustedError,
  PreconditionFailedError,
  type Store,
  type StoredRecord,
  type StoreOptions,
  type UniqueField,
  type UniqueViolationError,
  type WriteConditions,
} from '../store.js';
import { guard as guardAvailability, isUnavailable } from './errors.js';
import { postgresIdempotencyKeys } from './idempotency-keys.js';
import { migrate } from './migrations.js';
import { foldSqlFor, ICU_ROOT_COLLATION, postgresDialect, postgresDialectFor } from './postgres-dialect.js';
import { readinessProbe } from './readiness-probe.js';
import { syncSearchIndexes } from './search-index.js';

/** The columns of a {@link StoredRecord}. */
const COLUMNS = 'id, data::text AS data, version, created_at AS "createdAt", updated_at AS "updatedAt"';

/** int8 (ids) as a JS number: ids stay far below 2^53, and the API shows them as numbers. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Connects to the database at `url`, migrates it, and returns the store. */
export async function openPostgresStore(
  url: string,
  collections: readonly string[],
  options: StoreOptions,
): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    // The server cancels a statement that runs too long; the client gives up a little later
    // on a connection that went silent (a cut network sends no reset).
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 1000,
    keepAlive: true,
    application_name: 'restock',
    types,
  });
  // An idle connection that breaks (database restart, network cut) is reported here; the
  // pool drops it and opens a fresh one when next needed. Without a listener it would
  // crash the process.
  pool.on('error', () => {});

  let dialect = postgresDialect;
  try {
    const client = await guardAvailability(() => pool.connect());
    try {
      const icu = await hasIcu(client);
      await migrate(client, collections, async (locked) => {
        for (const statement of createIndexStatements(postgresDialect, options.indexes)) await locked.query(statement);
        await syncUniqueIndexes(locked, collections, options.unique);
        await syncSearchIndexes(locked, collections, foldSqlFor(icu), (message) =>
          process.emitWarning(message, { code: 'RESTOCK_SEARCH_UNINDEXED' }),
        );
      });
      dialect = postgresDialectFor(icu);
      // A write is acknowledged only once PostgreSQL has flushed it; a server configured
      // with synchronous_commit = off would ack before that, so restock's sessions opt back in.
      const { rows } = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      if (rows[0]?.synchronous_commit === 'off') {
        await client.query('SET synchronous_commit = on');
        pool.on('connect', (fresh) => void fresh.query('SET synchronous_commit = on').catch(() => {}));
      }
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }

  const uniqueByIndex = new Map(options.unique.map((field) => [uniqueIndexName(field), field]));
  const guard = <T>(run: () => Promise<T>, collection?: string): Promise<T> =>
    guardWith(uniqueByIndex, collections, run, options.statementTimeoutMs, collection);
  const probe = readinessProbe(url, options);
  const collection = collectionLookup(collections, (name) =>
    postgresCollection(pool, dialect, (run) => guard(run, name), name, indexedIn(options.indexes, name)),
  );
  return {
    dialect: 'postgres',
    gauges: [
      {
        name: 'pool_connections',
        help: 'PostgreSQL connections of the pool, by state (idle or busy), and requests waiting for one.',
        labelNames: ['state'],
        read: () => [
          { labels: { state: 'idle' }, value: pool.idleCount },
          { labels: { state: 'busy' }, value: pool.totalCount - pool.idleCount },
          { labels: { state: 'waiting' }, value: pool.waitingCount },
        ],
      },
    ],
    collection,
    idempotency: postgresIdempotencyKeys(pool, guard),
    async ping() {
      await guard(() => probe.ping());
    },
    async close() {
      await probe.close();
      if (!pool.ended) await pool.end();
    },
  };
}

function postgresCollection(
  pool: pg.Pool,
  dialect: SqlDialect,
  guard: <T>(run: () => Promise<T>) => Promise<T>,
  table: string,
  isIndexed: (path: readonly string[]) => boolean,
): Collection {
  /** A named, server-side prepared statement on whichever connection runs it. */
  const statement = (name: string, text: string) => ({ name: `${table}.${name}`, text });
  const get = statement('get', `SELECT ${COLUMNS} FROM "${table}" WHERE id = $1`);
  const insert = statement('insert', `INSERT INTO "${table}" (data) VALUES ($1::jsonb) RETURNING ${COLUMNS}`);
  // A merge: the row read under its lock, then written with the fields merged in the application.
  const lockRow = statement('lockRow', `SELECT data::text AS data, version FROM "${table}" WHERE id = $1 FOR UPDATE`);
  const update = statement(
    'update',
    `UPDATE "${table}" SET data = $1::jsonb, version = version + 1, updated_at = restock_now() WHERE id = $2
     RETURNING ${COLUMNS}`,
  );
  // One statement, so one transaction: the delete, and an Idempotency-Key forgetting its copy of the record.
  const removeWhere = (condition: string) =>
    `WITH gone AS (DELETE FROM "${table}" WHERE ${condition} RETURNING ${COLUMNS}), forgot AS (UPDATE idempotency_keys
     SET record = NULL WHERE collection = '${table}' AND record_id IN (SELECT id FROM gone)) SELECT * FROM gone`;
  const remove = statement('remove', removeWhere('id = $1'));
  const removeIf = statement('removeIf', removeWhere('id = $1 AND version = ANY($2::integer[])'));
  // Ids come out in input order: the identity is drawn row by row in ordinality order.
  const insertMany = statement(
    'insertMany',
    `INSERT INTO "${table}" (data)
     SELECT item::jsonb FROM unnest($1::text[]) WITH ORDINALITY AS batch(item, position) ORDER BY position
     RETURNING ${COLUMNS}`,
  );
  const insertExact = statement(
    'insertExact',
    `INSERT INTO "${table}" (id, data, version, created_at, updated_at) OVERRIDING SYSTEM VALUE
     SELECT * FROM unnest($1::bigint[], $2::text[]::jsonb[], $3::integer[], $4::text[], $5::text[])`,
  );
  // Moves the identity past every restored id, so that later creates never collide.
  const raiseIdentity = statement(
    'raiseIdentity',
    `SELECT setval(seq, top) FROM (
       SELECT pg_get_serial_sequence('"${table}"', 'id')::regclass AS seq, (SELECT max(id) FROM "${table}") AS top
     ) identity WHERE top > COALESCE(pg_sequence_last_value(seq), 0)`,
  );

  const one = async (query: { name: string; text: string }, values: unknown[]) =>
    (await guard(() => pool.query<StoredRecord>({ ...query, values }))).rows[0];

  /** Runs a write: plain, or checking the version (a miss is a failed precondition). */
  const conditional = async (
    plain: () => Promise<StoredRecord | undefined>,
    checked: (versions: readonly number[]) => Promise<StoredRecord | undefined>,
    ifVersion: WriteConditions['ifVersion'],
  ) => {
    if (ifVersion === undefined) return plain();
    const record = ifVersion === '*' ? await plain() : ifVersion.length > 0 ? await checked(ifVersion) : undefined;
    if (!record) throw new PreconditionFailedError();
    return record;
  };

  return {
    async list(query) {
      // Unnamed: list queries take many shapes, and a connection would keep each one prepared.
      const sql = selectPage(dialect, isIndexed, table, COLUMNS, query);
      const { rows } = await guard(() => pool.query(sql.text, sql.values));
      return rows.map((row) => listedRecord(row, sql.positionColumns));
    },
    isCostly: (query) => isCostly(query, isIndexed),
    async count(query) {
      const sql = selectCount(dialect, isIndexed, table, query);
      const { rows } = await guard(() => pool.query<{ n: string }>(sql.text, sql.values));
      return Number(rows[0]?.n ?? 0);
    },
    get: (id) => one(get, [id]),
    async create(data, idempotency) {
      if (!idempotency) return (await one(insert, [data])) as StoredRecord;
      return transaction(pool, guard, async (client) => {
        const record = (await client.query<StoredRecord>({ ...insert, values: [data] })).rows[0] as StoredRecord;
        const done = await client.query(
          `UPDATE idempotency_keys SET state = 'done', collection = $4, record = $5, record_id = $6
           WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'running'`,
          [idempotency.scope, idempotency.key, idempotency.token, table, JSON.stringify(record), record.id],
        );
        if (done.rowCount !== 1) throw new IdempotencyConflictError();
        return record;
      });
    },
    async createMany(data) {
      const { rows } = await guard(() => pool.query<StoredRecord>({ ...insertMany, values: [data] }));
      return rows.sort((a, b) => a.id - b.id);
    },
    async restore(records) {
      if (records.length === 0) return;
      await transaction(pool, guard, async (client) => {
        await client.query({
          ...insertExact,
          values: [
            records.map((r) => r.id),
            records.map((r) => r.data),
            records.map((r) => r.version),
            records.map((r) => r.createdAt),
            records.map((r) => r.updatedAt),
          ],
        });
        await client.query(raiseIdentity);
      });
    },
    // Read (locking the row), merge in linear time (see merge-patch.ts) and write, in one
    // transaction: a concurrent merge of the same record waits for the lock and then reads
    // this one's result, so neither loses a field, and the version is checked under the lock.
    merge(id, patch, { check, ifVersion, maxBytes } = {}) {
      return transaction(pool, guard, async (client) => {
        const current = (await client.query<StoredRecord>({ ...lockRow, values: [id] })).rows[0];
        if (!current || !versionMatches(ifVersion, current.version)) {
          if (ifVersion !== undefined) throw new PreconditionFailedError();
          return undefined;
        }
        const data = mergedFields(current.data, patch, maxBytes);
        const record = (await client.query<StoredRecord>({ ...update, values: [data, id] })).rows[0] as StoredRecord;
        check?.(record.data);
        return record;
      });
    },
    remove: (id, conditions = {}) =>
      conditional(
        () => one(remove, [id]),
        (versions) => one(removeIf, [id, versions]),
        conditions.ifVersion,
      ),
    async duplicates(field, limit) {
      const sql = selectDuplicatesSql(postgresDialect, { ...field, collection: table }, limit);
      const { rows } = await guard(() => pool.query<DuplicateRow>(sql));
      return rows.map(toDuplicate);
    },
  };
}

/**
 * Makes the unique indexes of the fields `unique` declares and drops those restock made
 * for fields it no longer declares. Runs under the migration lock: concurrent CREATE
 * INDEX statements on one name would fail each other.
 */
async function syncUniqueIndexes(
  client: pg.PoolClient,
  collections: readonly string[],
  unique: readonly UniqueField[],
): Promise<void> {
  const { rows } = await client.query<ExistingIndex>(
    `SELECT tablename AS "table", indexname AS name, indexdef LIKE 'CREATE UNIQUE %' AS "unique"
     FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1)`,
    [collections],
  );
  for (const name of staleUniqueIndexes(rows, unique)) await client.query(dropIndexSql(name));
  for (const field of unique) await createUniqueIndex(client, field);
}

/** Creates the unique index of `field`; records that already share a value stop the start, named. */
async function createUniqueIndex(client: pg.PoolClient, field: UniqueField): Promise<void> {
  // A failed statement aborts the whole transaction; the savepoint keeps it usable for
  // reading the duplicates that made it fail.
  await client.query('SAVEPOINT unique_index');
  try {
    await client.query(createUniqueIndexSql(postgresDialect, field));
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    await client.query('ROLLBACK TO SAVEPOINT unique_index');
    const { rows } = await client.query<DuplicateRow>(selectDuplicatesSql(postgresDialect, field, 3));
    throw uniqueIndexFailure(field, rows, error);
  }
  await client.query('RELEASE SAVEPOINT unique_index');
}

/** Whether the server has ICU's root collation, which search folds case with. */
async function hasIcu(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ found: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = $1) AS found',
    [ICU_ROOT_COLLATION],
  );
  return rows[0]?.found === true;
}

/**
 * Runs a database call, turning unavailability into StoreUnavailableError and a unique
 * index's refusal (SQLSTATE 23505) on a collection into {@link UniqueViolationError}, and
 * the end of `collection`'s ids into {@link IdsExhaustedError}.
 */
async function guardWith<T>(
  unique: ReadonlyMap<string, UniqueField>,
  collections: readonly string[],
  run: () => Promise<T>,
  statementTimeoutMs: number,
  collection?: string,
): Promise<T> {
  try {
    return await guardAvailability(run, statementTimeoutMs);
  } catch (error) {
    const { code, table = '', constraint = '', detail = '' } = error as pg.DatabaseError;
    // The identity reached its MAXVALUE (2^53 - 1, see migrations.ts): no id is left.
    if (code === '2200H' && collection !== undefined) throw new IdsExhaustedError(collection);
    // A taken id (restore) is not a unique field's conflict: it is passed on as it is.
    if (code === '23505' && collections.includes(table) && constraint !== `${table}_pkey`) {
      throw uniqueViolation(postgresDialect, unique, { index: constraint, table, definition: detail });
    }
    throw error;
  }
}

/** Runs `work` on one connection inside BEGIN/COMMIT, rolling back if it throws. */
function transaction<T>(
  pool: pg.Pool,
  guard: <R>(run: () => Promise<R>) => Promise<R>,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return guard(async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      // A refusal (a failed If-Match, a record too large, a schema) leaves a clean connection,
      // which goes back to the pool; after a broken one, whatever its state, it does not.
      client.release(!rolledBack || isUnavailable(error));
      throw error;
    }
  });
}
