/**
 * The SQLite store: better-sqlite3 on one file in WAL mode. Reads run at once; every write
 * goes through {@link GroupCommit}, which commits the writes that arrive together in one
 * fsynced transaction (`synchronous = FULL`), each under its own savepoint, before any of
 * their promises resolves.
 */
import type { Database as Db, Statement } from 'better-sqlite3';
import { createIndexStatements, indexedIn, listedRecord, selectCount, selectPage } from '../sql/list-sql.js';
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
  type IdempotencyKeys,
  PreconditionFailedError,
  type Store,
  type StoredRecord,
  type StoreOptions,
  StoreUnavailableError,
  type UniqueField,
  type UniqueViolationError,
  type WriteConditions,
} from '../store.js';
import { openConnection } from './connection.js';
import { GroupCommit } from './group-commit.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { COLUMNS, collectionStatements } from './statements.js';

/** SQLite result codes that mean "not now" rather than "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;

/** Opens (creating when needed) the database file at `path`, or `:memory:`. */
export function openSqliteStore(
  path: string,
  collections: readonly string[],
  options: Pick<StoreOptions, 'indexes' | 'unique'>,
): Store {
  const db = openConnection(path, collections, createIndexStatements(sqliteDialect, options.indexes));
  try {
    syncUniqueIndexes(db, collections, options.unique);
  } catch (error) {
    db.close();
    throw error;
  }

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
  const commits = new GroupCommit(db, { mapError });
  const prepare = statementCache(db);
  const collection = collectionLookup(collections, (name) =>
    sqliteCollection(db, prepare, guard, commits, name, indexedIn(options.indexes, name)),
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

/**
 * Prepared statements of list queries, by their SQL. Their shapes depend on the filters
 * and sort a client sends, so the cache is bounded: the oldest is dropped first.
 */
function statementCache(db: Db, size = 256): (sql: string) => Statement {
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

function sqliteCollection(
  db: Db,
  prepare: (sql: string) => Statement,
  guard: <T>(run: () => T) => T,
  commits: GroupCommit,
  table: string,
  isIndexed: (path: readonly string[]) => boolean,
): Collection {
  const sql = collectionStatements(table);
  const get = db.prepare(sql.get);
  const insert = db.prepare(sql.insert);
  const insertExact = db.prepare(sql.insertExact);
  const merge = db.prepare(sql.merge);
  const mergeIf = db.prepare(sql.mergeIf);
  const remove = db.prepare(sql.remove);
  const removeIf = db.prepare(sql.removeIf);
  const completeClaim = db.prepare(
    `UPDATE idempotency_keys SET state = 'done', collection = ?, record = ?
     WHERE scope = ? AND key = ? AND token = ? AND state = 'running'`,
  );

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
      const rows = guard(() => prepare(sql.text).all(named(sql.values)) as Record<string, unknown>[]);
      return rows.map((row) => listedRecord(row, sql.positionColumns));
    },
    async count(query) {
      const sql = selectCount(sqliteDialect, isIndexed, table, query);
      return guard(() => (prepare(sql.text).get(named(sql.values)) as { n: number }).n);
    },
    async get(id) {
      return guard(() => get.get(id) as StoredRecord | undefined);
    },
    // Every write is a unit of work of the group commit: its statements run under its own
    // savepoint, so a throw (a failed precondition, a schema check, a unique field, a lost
    // idempotency claim) undoes only this write, and it resolves once its batch is durable.
    create(data, idempotency) {
      return commits.run(() => {
        const now = new Date().toISOString();
        const record = insert.get(data, now, now) as StoredRecord;
        if (idempotency) {
          const { scope, key, token } = idempotency;
          const done = completeClaim.run(table, JSON.stringify(record), scope, key, token);
          if (done.changes !== 1) throw new IdempotencyConflictError();
        }
        return record;
      });
    },
    createMany(data) {
      return commits.run(() => {
        const now = new Date().toISOString();
        return data.map((d) => insert.get(d, now, now) as StoredRecord);
      });
    },
    restore(records) {
      return commits.run(() => {
        for (const r of records) insertExact.run(r.id, r.data, r.version, r.createdAt, r.updatedAt);
      });
    },
    merge(id, patch, conditions = {}) {
      return commits.run(() => {
        const now = new Date().toISOString();
        const record = conditional(
          () => merge.get(patch, now, id) as StoredRecord | undefined,
          (versions) => mergeIf.get(patch, now, id, versions) as StoredRecord | undefined,
          conditions.ifVersion,
        );
        if (record) conditions.check?.(record.data);
        return record;
      });
    },
    remove(id, conditions = {}) {
      return commits.run(() =>
        conditional(
          () => remove.get(id) as StoredRecord | undefined,
          (versions) => removeIf.get(id, versions) as StoredRecord | undefined,
          conditions.ifVersion,
        ),
      );
    },
    async duplicates(field, limit) {
      const sql = selectDuplicatesSql(sqliteDialect, { ...field, collection: table }, limit);
      return guard(() => (prepare(sql).all() as DuplicateRow[]).map(toDuplicate));
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

function sqliteIdempotencyKeys(db: Db, commits: GroupCommit): IdempotencyKeys {
  const insert = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, fingerprint, token, state, claimed_at, created_at)
     VALUES (?, ?, ?, ?, 'running', ?, ?) ON CONFLICT DO NOTHING`,
  );
  const find = db.prepare(
    'SELECT fingerprint, state, token, collection, record, claimed_at AS claimedAt FROM idempotency_keys WHERE scope = ? AND key = ?',
  );
  const takeOver = db.prepare(
    `UPDATE idempotency_keys SET token = ?, claimed_at = ? WHERE scope = ? AND key = ? AND token = ? AND state = 'running'`,
  );
  const release = db.prepare(
    `DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND token = ? AND state = 'running'`,
  );
  const sweep = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');

  // A unit of work of the group commit: its batch holds the write lock (BEGIN IMMEDIATE),
  // which makes claim-or-read one step across processes.
  const claim = (scope: string, key: string, fingerprint: string, token: string, staleAfterMs: number) => {
    const now = Date.now();
    if (insert.run(scope, key, fingerprint, token, now, now).changes === 1) return { state: 'claimed' } as const;
    const found = find.get(scope, key) as {
      fingerprint: string;
      state: string;
      token: string;
      collection: string | null;
      record: string | null;
      claimedAt: number;
    };
    if (found.fingerprint !== fingerprint) return { state: 'mismatch' } as const;
    if (found.state === 'done') {
      return {
        state: 'done',
        collection: found.collection ?? '',
        record: JSON.parse(found.record ?? '{}') as StoredRecord,
      } as const;
    }
    if (found.claimedAt > now - staleAfterMs) return { state: 'running' } as const;
    takeOver.run(token, now, scope, key, found.token);
    return { state: 'claimed' } as const;
  };

  return {
    claim(scope, key, fingerprint, token, staleAfterMs) {
      return commits.run(() => claim(scope, key, fingerprint, token, staleAfterMs));
    },
    async release(scope, key, token) {
      await commits.run(() => release.run(scope, key, token));
    },
    sweep(before) {
      return commits.run(() => sweep.run(before.getTime()).changes);
    },
  };
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
