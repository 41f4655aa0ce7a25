/**
 * The PostgreSQL store: node-postgres with a pool, each write a single statement that is
 * durable when it returns (PostgreSQL's default `synchronous_commit = on`). No state lives
 * in the process, so any number of instances may share one database.
 */
import pg from 'pg';
import type { Collection, Store, StoredRecord, StoreOptions } from '../store.js';
import { guard } from './errors.js';
import { migrate } from './migrations.js';

const TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** The columns of a {@link StoredRecord}, formatted as the API shows them. */
const COLUMNS = `id, data::text AS data, version,
  to_char(created_at AT TIME ZONE 'UTC', ${TIMESTAMP}) AS "createdAt",
  to_char(updated_at AT TIME ZONE 'UTC', ${TIMESTAMP}) AS "updatedAt"`;

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

  try {
    const client = await guard(() => pool.connect());
    try {
      await migrate(client, collections);
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

  const byName = new Map(collections.map((name) => [name, postgresCollection(pool, name)]));
  return {
    dialect: 'postgres',
    collection(name) {
      const found = byName.get(name);
      if (!found) throw new Error(`unknown collection "${name}"`);
      return found;
    },
    async ping() {
      await guard(() => pool.query('SELECT 1'));
    },
    async close() {
      if (!pool.ended) await pool.end();
    },
  };
}

function postgresCollection(pool: pg.Pool, table: string): Collection {
  /** A named, server-side prepared statement on whichever connection runs it. */
  const statement = (name: string, text: string) => ({ name: `${table}.${name}`, text });
  const list = statement('list', `SELECT ${COLUMNS} FROM "${table}" WHERE id > $1 ORDER BY id LIMIT $2`);
  const get = statement('get', `SELECT ${COLUMNS} FROM "${table}" WHERE id = $1`);
  const insert = statement('insert', `INSERT INTO "${table}" (data) VALUES ($1::jsonb) RETURNING ${COLUMNS}`);
  // One UPDATE: PostgreSQL locks the row and, if another writer got there first,
  // re-evaluates the merge on its result, so concurrent merges never lose a field.
  const merge = statement(
    'merge',
    `UPDATE "${table}" SET data = restock_merge_patch(data, $1::jsonb), version = version + 1, updated_at = now()
     WHERE id = $2 RETURNING ${COLUMNS}`,
  );
  const remove = statement('remove', `DELETE FROM "${table}" WHERE id = $1 RETURNING ${COLUMNS}`);
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
     SELECT * FROM unnest($1::bigint[], $2::text[]::jsonb[], $3::integer[], $4::timestamptz[], $5::timestamptz[])`,
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

  return {
    async list(page) {
      return (await guard(() => pool.query<StoredRecord>({ ...list, values: [page.afterId ?? 0, page.limit] }))).rows;
    },
    get: (id) => one(get, [id]),
    async create(data) {
      return (await one(insert, [data])) as StoredRecord;
    },
    async createMany(data) {
      const { rows } = await guard(() => pool.query<StoredRecord>({ ...insertMany, values: [data] }));
      return rows.sort((a, b) => a.id - b.id);
    },
    async restore(records) {
      if (records.length === 0) return;
      await transaction(pool, async (client) => {
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
    merge: (id, patch) => one(merge, [patch, id]),
    remove: (id) => one(remove, [id]),
  };
}

/** Runs `work` on one connection inside BEGIN/COMMIT, rolling back if it throws. */
function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return guard(async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      // Whatever state the connection is in, it does not go back to the pool.
      client.release(true);
      throw error;
    }
  });
}
