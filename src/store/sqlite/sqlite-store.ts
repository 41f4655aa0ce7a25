/**
 * The SQLite store: better-sqlite3 on one file in WAL mode, every commit fsynced before
 * its promise resolves (`synchronous = FULL`).
 */
import type { Database as Db } from 'better-sqlite3';
import { type Collection, type Store, type StoredRecord, StoreUnavailableError } from '../store.js';
import { openConnection } from './connection.js';
import { collectionStatements } from './statements.js';

/** SQLite result codes that mean "not now" rather than "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;

/** Opens (creating when needed) the database file at `path`, or `:memory:`. */
export function openSqliteStore(path: string, collections: readonly string[]): Store {
  const db = openConnection(path, collections);

  const byName = new Map(collections.map((name) => [name, sqliteCollection(db, name)]));
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
      if (db.open) db.close();
    },
  };
}

function sqliteCollection(db: Db, table: string): Collection {
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
    async create(data) {
      const now = new Date().toISOString();
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
    async merge(id, patch) {
      return guard(() => merge.get(patch, new Date().toISOString(), id) as StoredRecord | undefined);
    },
    async remove(id) {
      return guard(() => remove.get(id) as StoredRecord | undefined);
    },
  };
}

/** Runs a statement, turning "database busy or gone" into {@link StoreUnavailableError}. */
function guard<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE.test(code)) {
      throw new StoreUnavailableError(`SQLite is unavailable (${code})`, { cause: error });
    }
    throw error;
  }
}
