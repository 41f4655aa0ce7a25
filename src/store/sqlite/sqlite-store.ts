/**
 * The SQLite store: better-sqlite3 on one file in WAL mode, every commit fsynced before
 * its promise resolves (`synchronous = FULL`).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database, { type Database as Db, type Statement } from 'better-sqlite3';
import { createIndexStatements, indexedIn, listedRecord, selectCount, selectPage } from '../sql/list-sql.js';
import {
  createUniqueIndexSql,
  type DuplicateRow,
  duplicatesMessage,
  selectDuplicatesSql,
  toDuplicate,
  uniqueIndexName,
} from '../sql/unique-sql.js';
import {
  type Collection,
  IdempotencyConflictError,
  type IdempotencyKeys,
  PreconditionFailedError,
  type Store,
  type StoredRecord,
  type StoreOptions,
  StoreSetupError,
  StoreUnavailableError,
  type UniqueField,
  UniqueViolationError,
  type WriteConditions,
} from '../store.js';
import { migrate } from './migrations.js';
import { sqliteDialect } from './sqlite-dialect.js';

const COLUMNS = 'id, data, version, created_at AS createdAt, updated_at AS updatedAt';

/** SQLite result codes that mean "not now" rather than "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;

/** Opens (creating when needed) the database file at `path`, or `:memory:`. */
export function openSqliteStore(
  path: string,
  collections: readonly string[],
  options: Pick<StoreOptions, 'indexes' | 'unique'>,
): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // First, so that every later step waits for another process's lock instead of failing.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  migrate(db, collections, createIndexStatements(sqliteDialect, options.indexes));
  for (const field of options.unique) createUniqueIndex(db, field);

  const uniqueByIndex = new Map(options.unique.map((field) => [uniqueIndexName(field), field]));
  const guard = <T>(run: () => T): T => guardWith(uniqueByIndex, run);
  const prepare = statementCache(db);
  const byName = new Map(
    collections.map((name) => [name, sqliteCollection(db, prepare, guard, name, indexedIn(options.indexes, name))]),
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
    ],
    collection(name) {
      const found = byName.get(name);
      if (!found) throw new Error(`unknown collection "${name}"`);
      return found;
    },
    idempotency: sqliteIdempotencyKeys(db, guard),
    async ping() {
      guard(() => ping.get());
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

/** Creates the unique index of `field`; records that already share a value stop the start, named. */
function createUniqueIndex(db: Db, field: UniqueField): void {
  try {
    db.exec(createUniqueIndexSql(sqliteDialect, field));
  } catch (error) {
    if (!/UNIQUE/.test(String((error as Error).message))) throw error;
    const found = db.prepare(selectDuplicatesSql(sqliteDialect, field, 3)).all() as DuplicateRow[];
    throw new StoreSetupError(duplicatesMessage(field, found.map(toDuplicate)));
  }
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
  table: string,
  isIndexed: (path: readonly string[]) => boolean,
): Collection {
  const q = (sql: string): Statement => db.prepare(sql);
  const get = q(`SELECT ${COLUMNS} FROM "${table}" WHERE id = ?`);
  const insert = q(`INSERT INTO "${table}" (data, created_at, updated_at) VALUES (?, ?, ?) RETURNING ${COLUMNS}`);
  // An explicit id also moves AUTOINCREMENT's high-water mark past it.
  const insertExact = q(
    `INSERT INTO "${table}" (id, data, version, created_at, updated_at) VALUES (?, json(?), ?, ?, ?)`,
  );
  // json_patch is RFC 7396 merge patch, applied by SQLite inside the UPDATE: no window in
  // which another writer's change to a different field could be lost. The version check
  // of a conditional write is part of the same statement.
  const mergeSql = `UPDATE "${table}" SET data = json_patch(data, ?), version = version + 1, updated_at = ? WHERE id = ?`;
  const merge = q(`${mergeSql} RETURNING ${COLUMNS}`);
  const mergeIf = q(`${mergeSql} AND version IN (SELECT value FROM json_each(?)) RETURNING ${COLUMNS}`);
  const remove = q(`DELETE FROM "${table}" WHERE id = ? RETURNING ${COLUMNS}`);
  const removeIf = q(
    `DELETE FROM "${table}" WHERE id = ? AND version IN (SELECT value FROM json_each(?)) RETURNING ${COLUMNS}`,
  );
  const completeClaim = q(
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

  // A merge whose result must pass a check: the UPDATE and the check in one transaction,
  // rolled back when the check throws.
  const mergeChecked = db.transaction(
    (id: number, patch: string, now: string, conditions: WriteConditions, check: (data: string) => void) => {
      const record = conditional(
        () => merge.get(patch, now, id) as StoredRecord | undefined,
        (versions) => mergeIf.get(patch, now, id, versions) as StoredRecord | undefined,
        conditions.ifVersion,
      );
      if (record) check(record.data);
      return record;
    },
  );

  const createIdempotent = db.transaction(
    (data: string, now: string, claim: { scope: string; key: string; token: string }) => {
      const record = insert.get(data, now, now) as StoredRecord;
      const done = completeClaim.run(table, JSON.stringify(record), claim.scope, claim.key, claim.token);
      if (done.changes !== 1) throw new IdempotencyConflictError();
      return record;
    },
  );

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
    async create(data, idempotency) {
      const now = new Date().toISOString();
      if (idempotency) return guard(() => createIdempotent.immediate(data, now, idempotency));
      return guard(() => insert.get(data, now, now) as StoredRecord);
    },
    async createMany(data) {
      const now = new Date().toISOString();
      const insertAll = db.transaction((items: readonly string[]) => items.map((d) => insert.get(d, now, now)));
      return guard(() => insertAll(data) as StoredRecord[]);
    },
    async restore(records) {
      const writeAll = db.transaction((items: readonly StoredRecord[]) => {
        for (const r of items) insertExact.run(r.id, r.data, r.version, r.createdAt, r.updatedAt);
      });
      guard(() => writeAll(records));
    },
    async merge(id, patch, conditions = {}) {
      const now = new Date().toISOString();
      const { check } = conditions;
      if (check) return guard(() => mergeChecked.immediate(id, patch, now, conditions, check));
      return guard(() =>
        conditional(
          () => merge.get(patch, now, id) as StoredRecord | undefined,
          (versions) => mergeIf.get(patch, now, id, versions) as StoredRecord | undefined,
          conditions.ifVersion,
        ),
      );
    },
    async remove(id, conditions = {}) {
      return guard(() =>
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

function sqliteIdempotencyKeys(db: Db, guard: <T>(run: () => T) => T): IdempotencyKeys {
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

  // One immediate transaction: the write lock makes claim-or-read one step across processes.
  const claim = db.transaction(
    (scope: string, key: string, fingerprint: string, token: string, staleAfterMs: number) => {
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
    },
  );

  return {
    async claim(scope, key, fingerprint, token, staleAfterMs) {
      return guard(() => claim.immediate(scope, key, fingerprint, token, staleAfterMs));
    },
    async release(scope, key, token) {
      guard(() => release.run(scope, key, token));
    },
    async sweep(before) {
      return guard(() => sweep.run(before.getTime()).changes);
    },
  };
}

/**
 * Runs a statement, turning "database busy or gone" into {@link StoreUnavailableError}
 * and a unique index's refusal into {@link UniqueViolationError} naming its field.
 */
function guardWith<T>(unique: ReadonlyMap<string, UniqueField>, run: () => T): T {
  try {
    return run();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
      const index = /index '([^']+)'/.exec((error as Error).message)?.[1];
      const field = index === undefined ? undefined : unique.get(index);
      if (field) throw new UniqueViolationError(field.collection, field.path);
    }
    if (typeof code === 'string' && UNAVAILABLE.test(code)) {
      throw new StoreUnavailableError(`SQLite is unavailable (${code})`, { cause: error });
    }
    throw error;
  }
}
