/**
 * The SQLite store: better-sqlite3 on one file in WAL mode, every commit fsynced before
 * its promise resolves (`synchronous = FULL`).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database, { type Database as Db, type Statement } from 'better-sqlite3';
import { type Collection, type Store, type StoredRecord, StoreUnavailableError } from '../store.js';
import { migrate } from './migrations.js';

const COLUMNS = 'id, data, version, created_at AS createdAt, updated_at AS updatedAt';

/** SQLite result codes that mean "not now" rather than "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;

/** Opens (creating when needed) the database file at `path`, or `:memory:`. */
export function openSqliteStore(path: string, collections: readonly string[]): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  migrate(db, collections);

  const byName = new Map(collections.map((name) => [name, sqliteCollection(db, name)]));
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
      },
    ],
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
  const q = (sql: string): Statement => db.prepare(sql);
  const list = q(`SELECT ${COLUMNS} FROM "${table}" WHERE id > ? ORDER BY id LIMIT ?`);
  const get = q(`SELECT ${COLUMNS} FROM "${table}" WHERE id = ?`);
  const insert = q(`INSERT INTO "${table}" (data, created_at, updated_at) VALUES (?, ?, ?) RETURNING ${COLUMNS}`);
  // json_patch is RFC 7396 merge patch, applied by SQLite inside the UPDATE: no window in
  // which another writer's change to a different field could be lost.
  // An explicit id also moves AUTOINCREMENT's high-water mark past it.
  const insertExact = q(
    `INSERT INTO "${table}" (id, data, version, created_at, updated_at) VALUES (?, json(?), ?, ?, ?)`,
  );
  const merge = q(
    `UPDATE "${table}" SET data = json_patch(data, ?), version = version + 1, updated_at = ?
     WHERE id = ? RETURNING ${COLUMNS}`,
  );
  const remove = q(`DELETE FROM "${table}" WHERE id = ? RETURNING ${COLUMNS}`);

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
