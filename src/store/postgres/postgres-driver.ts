/**
 * The PostgreSQL driver: node-postgres with a pool. A write is one statement, or one short
 * transaction on one connection, durable when it returns (`synchronous_commit = on`). No
 * state lives in the process, so any number of instances may share one database.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { SqlDriver } from '../sql/driver.js';
import { type Result, runProgramAsync, type Sql } from '../sql/program.js';
import { type StoreOptions, StoreUnavailableError } from '../store.js';
import { startChangeSequencer } from './change-sequencer.js';
import { connectionRefusal } from './connection-refusals.js';
import { listenForChanges } from './notifications.js';
import { ICU_ROOT_COLLATION } from './postgres-dialect.js';
import { isRetriable, isUnavailable, postgresFault } from './postgres-faults.js';
import { PLAN_SETTINGS } from './postgres-plan.js';

/** int8 (ids) as a JS number: ids stay below 2^53, and the API shows them as numbers. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Any fixed number, the same in every instance: the key of the migration lock. */
const MIGRATION_LOCK = 0x7265_7374; // "rest"

/**
 * Connects to the database at `url`; resolves with the driver, and whether the server has
 * ICU collations (which the dialect and the tables' DDL follow: ./index.ts).
 */
export async function openPostgresDriver(
  url: string,
  options: Pick<StoreOptions, 'poolSize' | 'connectTimeoutMs' | 'statementTimeoutMs'>,
): Promise<{ driver: SqlDriver; icu: boolean }> {
  const connection: pg.PoolConfig = {
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    // The server cancels a statement that runs too long; the client gives up a little later
    // on a connection that went silent (a cut network sends no reset).
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 1000,
    keepAlive: true,
    types,
  };
  const pool = openPool(connection, options.poolSize, 'restock');
  // The change feeds' connections, outside the pool: numbering changes and reading the log
  // never wait behind requests for a pooled connection. At 1,000 writes a second that wait
  // was most of the time from a commit to its event (bench/README.md).
  const sequencerPool = openPool(connection, 1, 'restock sequencer');
  const feedPool = openPool(connection, 2, 'restock feeds');
  // Readiness asks on a connection of its own too, so that it never queues behind requests
  // holding every pooled one (a load balancer would take a busy instance for a dead one).
  const readinessPool = openPool(connection, 1, 'restock readiness');
  const pools = [pool, sequencerPool, feedPool, readinessPool];
  let icu: boolean;
  try {
    icu = await inspect(pool, pools);
  } catch (error) {
    await Promise.all(pools.map((each) => each.end()));
    const refusal = connectionRefusal(error, url);
    if (refusal) throw refusal;
    if (!isUnavailable(error)) throw error;
    throw new StoreUnavailableError(`PostgreSQL is unavailable (${(error as Error).message})`, { cause: error });
  }
  const query = async (client: pg.Pool | pg.PoolClient, { text, values, name }: Sql): Promise<Result> => {
    const result = await client.query({
      text,
      values: values as unknown[],
      ...(name ? { name } : {}),
      ...sendingTime(values, options.statementTimeoutMs),
    });
    return { rows: result.rows, changes: result.rowCount ?? 0 };
  };
  const sequencer = startChangeSequencer(sequencerPool);
  // Each write's changes are numbered soon after it commits (./change-sequencer.ts).
  const thenNumber = <T>(written: Promise<T>): Promise<T> => {
    void written.then(sequencer.wake, () => {});
    return written;
  };
  const driver: SqlDriver = {
    name: 'postgres',
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
    read: (statement) => query(pool, statement),
    plan: (statement) =>
      inTransaction(pool, async (client) => {
        for (const setting of PLAN_SETTINGS) await client.query(setting);
        return query(client, { text: `EXPLAIN (FORMAT JSON) ${statement.text}`, values: statement.values });
      }),
    readChanges: (statement) => query(feedPool, statement),
    write: (statement) => thenNumber(query(pool, statement)),
    transaction: (work) =>
      thenNumber(retried(() => inTransaction(pool, (client) => runProgramAsync(work(), (s) => query(client, s))))),
    locked: (work) =>
      inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        return runProgramAsync(work(), (s) => query(client, s));
      }),
    fault: postgresFault,
    watchChanges: (wake) => listenForChanges(url, wake),
    numberChanges: () => sequencer.settle(),
    ping: async () => {
      await readinessPool.query('SELECT 1');
    },
    async close() {
      await sequencer.close();
      await Promise.all(pools.filter((each) => !each.ended).map((each) => each.end()));
    },
  };
  return { driver, icu };
}

function openPool(connection: pg.PoolConfig, max: number, name: string): pg.Pool {
  const pool = new pg.Pool({ ...connection, max, application_name: name });
  // A connection that breaks (database restart, network cut, a terminated backend) emits
  // 'error', and without a listener that crashes the process. An idle one reports it to
  // the pool, which drops it and opens a fresh one when next needed; one handed out has
  // the pool's listener taken off, so it keeps one of its own for good. Its statement, or
  // its next one, fails as unavailable, and inTransaction does not give it back.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * Whether the server has ICU's root collation, which search folds case with; and, on a
 * server configured with synchronous_commit = off (which acknowledges a commit before it is
 * flushed), the sessions of every one of `pools` opt back in.
 */
async function inspect(pool: pg.Pool, pools: readonly pg.Pool[]): Promise<boolean> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ icu: boolean; sync: string }>(
      `SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = $1) AS icu, current_setting('synchronous_commit') AS sync`,
      [ICU_ROOT_COLLATION],
    );
    if (rows[0]?.sync === 'off') {
      await client.query('SET synchronous_commit = on');
      for (const each of pools) {
        each.on('connect', (fresh) => void fresh.query('SET synchronous_commit = on').catch(() => {}));
      }
    }
    return rows[0]?.icu === true;
  } finally {
    client.release();
  }
}

/** How many times a transaction PostgreSQL broke off to end a deadlock is run in all. */
const ATTEMPTS = 5;
/** The longest pause before the first retry; each retry after it may wait twice as long as the one before. */
const FIRST_PAUSE_MS = 20;

/**
 * Runs `transaction`, and again, up to {@link ATTEMPTS} times, while PostgreSQL ends it to
 * break a deadlock, each time after a pause drawn at random below a bound that doubles
 * (20, 40, 80, 160 ms): transactions that met run again at different moments, rather than
 * all at once into the same locks. The connection goes back to the pool during the pause.
 * Written here: the loop is five lines, and the pg driver has no retry of its own.
 */
async function retried<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetriable(error)) throw error;
      await sleep(Math.random() * FIRST_PAUSE_MS * 2 ** (attempt - 1));
    }
  }
}

/** Runs `work` on one connection inside BEGIN and COMMIT, rolling back if it throws. */
async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
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
}

/**
 * A longer client-side timeout for a statement whose values are large (an import's batch
 * of up to 64 MiB): the server's statement_timeout starts once the statement has arrived,
 * and sending it takes time of its own: a second a megabyte is allowed for it.
 */
function sendingTime(values: readonly unknown[] | undefined, statementTimeoutMs: number): { query_timeout?: number } {
  let bytes = 0;
  for (const value of values ?? []) if (typeof value === 'string') bytes += value.length;
  const megabytes = Math.floor(bytes / 1_048_576);
  return megabytes === 0 ? {} : { query_timeout: statementTimeoutMs + 1000 + megabytes * 1000 };
}
