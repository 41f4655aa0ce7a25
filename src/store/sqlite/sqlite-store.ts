/**
 * The SQLite store: better-sqlite3 on one file in WAL mode. Reads run at once; every write
 * goes through {@link GroupCommit}, which commits the writes that arrive together in one
 * fsynced transaction (`synchronous = FULL`), each under its own savepoint, before any of
 * their promises resolves.
 */
import type { Database as Db, Statement } from 'better-sqlite3';
import { mergedFields, versionMatches } from '../merge-patch.js';
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
  MAX_ID,
  PreconditionFailedError,
  type Store,
  type StoredRecord,
  type StoreOptions,
  StoreUnavailableError,
  type UniqueField,
  type UniqueViolationError,
  type WriteConditions,
} from '../store.js';
import { BUSY_TIMEOUT_MS, openConnection } from './connection.js';
import { GroupCommit } from './group-commit.js';
import { sqliteIdempotencyKeys, sqliteIdempotencyWrites } from './idempotency-keys.js';
import { ReadPool } from './read-pool.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { statementCache } from './statement-cache.js';
import { COLUMNS, collectionStatements } from './statements.js';

/** SQLite result codes that mean "not now" rather than "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;

/** Opens (creating when needed) the database file at `path`, or `:memory:`. */
export function openSqliteStore(
  path: string,
  collections: readonly string[],
  options: Pick<StoreOptions, 'indexes' | 'unique' | 'statementTimeoutMs'>,
): Store {
  const db = openConnection(path, collections, createIndexStatements(sqliteDialect, options.indexes));
  try {
    syncUniqueIndexes(db, collections, options.unique);
  } catch (error) {
    db.close();
    throw error;
  }
  // From here on, a lock another process holds is waited for by group commit between turns
  // of the event loop, never inside a statement on it.
  db.pragma('busy_timeout = 0');
  // A database in memory is one connection's alone: its reads stay on the event loop.
  const reads =
    path === ':memory:'
      ? undefined
      : new ReadPool({ path, timeoutMs: options.statementTimeoutMs, busyTimeoutMs: BUSY_TIMEOUT_MS });

  const uniqueByIndex = new Map(options.unique.map((field) => [uniqueIndexName(field), field]));
  const violationOf = uniqueViolationReader(db, uniqueByIndex, collections);
  const mapError = (error: unknown) => toStoreError(violationOf, error);
  const guard = <T>(run: () => T): T => {
    try {
      return run();
    } catch (error) {
      throw mapError(error);
    }
  };
  /** Runs a costly read on the pool, or inline where there is none. */
  const read = async <T>(sql: string, params: Record<string, unknown>, mode: 'all' | 'get'): Promise<T> => {
    if (!reads) return guard(() => prepare(sql)[mode](params) as T);
    try {
      return await reads.run<T>(sql, params, mode);
    } catch (error) {
      throw mapError(error);
    }
  };
  const commits = new GroupCommit(db, { mapError, busyTimeoutMs: BUSY_TIMEOUT_MS });
  const prepare = statementCache(db);
  const collection = collectionLookup(collections, (name) =>
    sqliteCollection({ db, prepare, guard, read, commits }, name, indexedIn(options.indexes, name)),
  );
  const ping = db.prepare('SELECT 1');
  const pageCount = db.prepare('PRAGMA page_count').pluck();
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  return {
    dialect: 'sqlite',
    gauges: [
      {
        name: 'database_bytes',
        help: 'Size of the SQLite database file in bytes (pages times page size; the WAL file aside).',
        read: () => Number(pageCount.get()) * pageSize,
        // Every worker sees the same file.
        aggregator: 'max',
      },
      {
        name: 'read_threads',
        help: 'Threads of the SQLite read pool, which runs the reads that may take long off the event loop.',
        read: () => reads?.stats.threads ?? 0,
      },
      {
        name: 'read_queue',
        help: 'Reads waiting for a thread of the SQLite read pool.',
        read: () => reads?.stats.queued ?? 0,
      },
      {
        name: 'group_commit_transactions',
        help: 'Transactions (and so fsyncs) the group commit has made since start.',
        read: () => commits.stats.batches,
      },
      {
        name: 'group_commit_writes',
        help: 'Writes committed by the group commit since start; over transactions, the mean batch size.',
        read: () => commits.stats.units,
      },
    ],
    collection,
    idempotency: sqliteIdempotencyKeys(db, commits),
    async ping() {
      guard(() => ping.get());
    },
    async close() {
      if (!db.open) return;
      await reads?.close();
      commits.drain();
      db.close();
    },
  };
}

/**
 * Makes the unique indexes of the fields `unique` declares and drops those restock made
 * for fields it no longer declares, in one transaction that holds the write lock.
 */
function syncUniqueIndexes(db: Db, collections: readonly string[], unique: readonly UniqueField[]): void {
  const indexes = db.prepare(
    `SELECT tbl_name AS "table", name, sql LIKE 'CREATE UNIQUE %' AS "unique" FROM sqlite_master
     WHERE type = 'index' AND tbl_name IN (SELECT value FROM json_each(?))`,
  );
  db.transaction(() => {
    const existing = (indexes.all(JSON.stringify(collections)) as ExistingIndex[]).map((index) => ({
      ...index,
      unique: Boolean(index.unique),
    }));
    for (const name of staleUniqueIndexes(existing, unique)) db.exec(dropIndexSql(name));
    for (const field of unique) createUniqueIndex(db, field);
  }).immediate();
}

/** Creates the unique index of `field`; records that already share a value stop the start, named. */
function createUniqueIndex(db: Db, field: UniqueField): void {
  try {
    db.exec(createUniqueIndexSql(sqliteDialect, field));
  } catch (error) {
    if (!/UNIQUE/.test(String((error as Error).message))) throw error;
    const found = db.prepare(selectDuplicatesSql(sqliteDialect, field, 3)).all() as DuplicateRow[];
    throw uniqueIndexFailure(field, found, error);
  }
}

/**
 * Reads which collection and field a unique index's refusal concerns. SQLite names only
 * the index, so an index this instance did not make is looked up in the schema.
 */
function uniqueViolationReader(
  db: Db,
  known: ReadonlyMap<string, UniqueField>,
  collections: readonly string[],
): (error: Error) => UniqueViolationError | undefined {
  const definition = db.prepare(`SELECT tbl_name AS "table", sql FROM sqlite_master WHERE type = 'index' AND name = ?`);
  return (error) => {
    const index = /index '([^']+)'/.exec(error.message)?.[1];
    if (index === undefined) return undefined;
    const found = definition.get(index) as { table: string; sql: string | null } | undefined;
    if (!found || !collections.includes(found.table)) return undefined;
    return uniqueViolation(sqliteDialect, known, { index, table: found.table, definition: found.sql ?? '' });
  };
}

/** What every collection of one SQLite store shares. */
interface SqliteContext {
  db: Db;
  /** A prepared statement of the event loop's connection, by its SQL. */
  prepare: (sql: string) => Statement;
  /** Runs statements on the event loop's connection, mapping errors to the store's. */
  guard: <T>(run: () => T) => T;
  /** Runs a read that may take long off the event loop (see read-pool.ts). */
  read: <T>(sql: string, params: Record<string, unknown>, mode: 'all' | 'get') => Promise<T>;
  commits: GroupCommit;
}

function sqliteCollection(
  { db, prepare, guard, read, commits }: SqliteContext,
  table: string,
  isIndexed: (path: readonly string[]) => boolean,
): Collection {
  const sql = collectionStatements(table);
  const get = db.prepare(sql.get);
  const insert = db.prepare(sql.insert);
  const insertExact = db.prepare(sql.insertExact);
  const update = db.prepare(sql.update);
  const remove = db.prepare(sql.remove);
  const removeIf = db.prepare(sql.removeIf);
  const keys = sqliteIdempotencyWrites(db);

  /** Inserts a new record; an id past {@link MAX_ID} throws, and the savepoint takes the insert back. */
  const insertNew = (data: string, now: string) => {
    const record = insert.get(data, now, now) as StoredRecord;
    if (record.id > MAX_ID) throw new IdsExhaustedError(table);
    return record;
  };

  /** Runs a write: plain, or checking the version (a miss is a failed precondition). */
  const conditional = (
    plain: () => StoredRecord | undefined,
    checked: (versions: string) => StoredRecord | undefined,
    ifVersion: WriteConditions['ifVersion'],
  ) => {
    if (ifVersion === undefined) return plain();
    const record = ifVersion === '*' ? plain() : ifVersion.length > 0 ? checked(JSON.stringify(ifVersion)) : undefined;
    if (!record) throw new PreconditionFailedError();
    return record;
  };

  return {
    async list(query) {
      const sql = selectPage(sqliteDialect, isIndexed, table, COLUMNS, query);
      const rows = isCostly(query, isIndexed)
        ? await read<Record<string, unknown>[]>(sql.text, named(sql.values), 'all')
        : guard(() => prepare(sql.text).all(named(sql.values)) as Record<string, unknown>[]);
      return rows.map((row) => listedRecord(row, sql.positionColumns));
    },
    isCostly: (query) => isCostly(query, isIndexed),
    async count(query) {
      const sql = selectCount(sqliteDialect, isIndexed, table, query);
      return (await read<{ n: number }>(sql.text, named(sql.values), 'get')).n;
    },
    async get(id) {
      return guard(() => get.get(id) as StoredRecord | undefined);
    },
    // Every write is a unit of work of the group commit: its statements run under its own
    // savepoint, so a throw (a failed precondition, a schema check, a unique field, a lost
    // idempotency claim) undoes only this write, and it resolves once its batch is durable.
    create(data, idempotency) {
      return commits.run(() => {
        const record = insertNew(data, new Date().toISOString());
        if (idempotency && !keys.complete(table, record, idempotency)) throw new IdempotencyConflictError();
        return record;
      });
    },
    createMany(data) {
      return commits.run(() => {
        const now = new Date().toISOString();
        return data.map((d) => insertNew(d, now));
      });
    },
    restore(records) {
      return commits.run(() => {
        for (const r of records) insertExact.run(r.id, r.data, r.version, r.createdAt, r.updatedAt);
      });
    },
    // Read, merge (in linear time, see merge-patch.ts) and write in one unit of work: its
    // batch holds the write lock from BEGIN IMMEDIATE, and this process runs one unit at a
    // time, so no other write to the record can come in between.
    merge(id, patch, conditions = {}) {
      return commits.run(() => {
        const current = get.get(id) as StoredRecord | undefined;
        if (!current || !versionMatches(conditions.ifVersion, current.version)) {
          if (conditions.ifVersion !== undefined) throw new PreconditionFailedError();
          return undefined;
        }
        const data = mergedFields(current.data, patch, conditions.maxBytes);
        const record = update.get(data, new Date().toISOString(), id) as StoredRecord;
        conditions.check?.(record.data);
        return record;
      });
    },
    remove(id, conditions = {}) {
      return commits.run(() => {
        const record = conditional(
          () => remove.get(id) as StoredRecord | undefined,
          (versions) => removeIf.get(id, versions) as StoredRecord | undefined,
          conditions.ifVersion,
        );
        if (record) keys.forget(table, record.id);
        return record;
      });
    },
    async duplicates(field, limit) {
      const sql = selectDuplicatesSql(sqliteDialect, { ...field, collection: table }, limit);
      return (await read<DuplicateRow[]>(sql, {}, 'all')).map(toDuplicate);
    },
  };
}

/** The values of a built query, for its `@p1, @p2, …` parameters. */
function named(values: readonly unknown[]): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  values.forEach((value, i) => {
    bound[`p${i + 1}`] = value;
  });
  return bound;
}

/**
 * A SQLite error as the HTTP layer should see it: "database busy or gone" is
 * {@link StoreUnavailableError}, a unique index's refusal {@link UniqueViolationError}
 * naming its field; anything else passes unchanged.
 */
function toStoreError(violationOf: (error: Error) => UniqueViolationError | undefined, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
    const violation = violationOf(error as Error);
    if (violation) return violation;
  }
  if (typeof code === 'string' && UNAVAILABLE.test(code)) {
    return new StoreUnavailableError(`SQLite is unavailable (${code})`, { cause: error });
  }
  return error;
}
