/**
 * The SQLite store: better-sqlite3 on one file in WAL mode. Reads run at once; writes go
 * through {@link GroupCommit}, which commits the writes that arrive together in one
 * fsynced transaction (`synchronous = FULL`) before any of their promises resolves.
 */
import type { Database as Db } from 'better-sqlite3';
import { type Collection, type Store, type StoredRecord, StoreUnavailableError } from '../store.js';
import { openConnection } from './connection.js';
import { GroupCommit } from './group-commit.js';
import { collectionStatements } from './statements.js';

/** SQLite result codes that mean "not now" rather than "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;

/** Opens (creating when needed) the database file at `path`, or `:memory:`. */
export function openSqliteStore(path: string, collections: readonly string[]): Store {
  const db = openConnection(path, collections);
  const commits = new GroupCommit(db, { mapError: toStoreError });

  const byName = new Map(collections.map((name) => [name, sqliteCollection(db, commits, name)]));
  const ping = db.prepare('SELECT 1');
  return {
    dialect: 'sqlite',
    collection(name) {
      const found = byName.get(name);
      if (!found) throw new Error(`unknown collection "${name}"`);
      return found;
    },
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

function sqliteCollection(db: Db, commits: GroupCommit, table: string): Collection {
  const sql = collectionStatements(table);
  const list = db.prepare(sql.list);
  const get = db.prepare(sql.get);
  const insert = db.prepare(sql.insert);
  const insertExact = db.prepare(sql.insertExact);
  const merge = db.prepare(sql.merge);
  const remove = db.prepare(sql.remove);

  return {
    async list(page) {
      return guard(() => list.all(page.afterId ?? 0, page.limit) as StoredRecord[]);
    },
    async get(id) {
      return guard(() => get.get(id) as StoredRecord | undefined);
    },
    create(data) {
      return commits.run(() => {
        const now = new Date().toISOString();
        return insert.get(data, now, now) as StoredRecord;
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
    merge(id, patch) {
      return commits.run(() => merge.get(patch, new Date().toISOString(), id) as StoredRecord | undefined);
    },
    remove(id) {
      return commits.run(() => remove.get(id) as StoredRecord | undefined);
    },
  };
}

/** Runs a read, turning "database busy or gone" into {@link StoreUnavailableError}. */
function guard<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw toStoreError(error);
  }
}

/** A SQLite error as the HTTP layer should see it: "busy or gone" is {@link StoreUnavailableError}. */
function toStoreError(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE.test(code)) {
    return new StoreUnavailableError(`SQLite is unavailable (${code})`, { cause: error });
  }
  return error;
}
