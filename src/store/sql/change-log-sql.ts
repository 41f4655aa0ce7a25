/**
 * The change log: every write to a collection's table leaves its changes, written by a
 * trigger in the write's own transaction (each database's DDL makes it), so there is no
 * event for a write that failed and none is lost for one that committed. Each collection
 * numbers its changes 1, 2, 3… through its row of `change_seqs`, so that a reader that saw 7
 * never later finds a 6 it missed. On SQLite, whose writes take turns anyway, the trigger
 * numbers them as it logs them; on PostgreSQL they are numbered after they commit
 * (../postgres/change-sequencer.ts), so that writes need not wait for each other.
 */
import type { Change, ChangeBounds, ChangeLog, StoredRecord } from '../store.js';
import type { SqlDialect } from './dialect.js';
import type { Guard } from './driver.js';
import type { SqlEngine } from './engine.js';
import { type Program, type Sql, sql, statement } from './program.js';

/** The most changes one read returns. */
export const CHANGES_PER_READ = 1000;

/** Changes trimmed per statement, so that a trim never holds the log long. */
const TRIM_BATCH = 5000;

/** The tables of the change log, in a database's id type. */
export function* createChangeTables(idType: string): Program<void> {
  yield sql(`CREATE TABLE changes (
    collection TEXT NOT NULL,
    seq        ${idType} NOT NULL,
    kind       TEXT NOT NULL,
    record_id  ${idType} NOT NULL,
    data       TEXT NOT NULL,
    previous   TEXT,
    version    INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    logged_at  TEXT NOT NULL,
    PRIMARY KEY (collection, seq)
  )`);
  yield sql('CREATE INDEX changes_by_age ON changes (logged_at)');
  yield sql(`CREATE TABLE change_seqs (
    collection TEXT PRIMARY KEY,
    seq        ${idType} NOT NULL
  )`);
}

/**
 * Makes the counter of each collection that lacks one, starting after what its log holds;
 * returns the collections that lacked one.
 */
export function* createChangeCounters(dialect: SqlDialect, collections: readonly string[]): Program<string[]> {
  const p = dialect.placeholder;
  const made: string[] = [];
  for (const collection of collections) {
    const { changes } = yield {
      text:
        `INSERT INTO change_seqs (collection, seq) SELECT ${p(1)}, COALESCE(MAX(seq), 0) FROM changes ` +
        `WHERE collection = ${p(1)} ON CONFLICT (collection) DO NOTHING`,
      values: [collection],
    };
    if (changes > 0) made.push(collection);
  }
  return made;
}

const KINDS = new Set(['created', 'updated', 'deleted']);

/** The change log over any engine. */
export function sqlChangeLog({ driver, dialect }: SqlEngine, guard: Guard): ChangeLog {
  const read = statement<'collection' | 'after' | 'limit'>(
    dialect.placeholder,
    (p) =>
      `SELECT seq, kind, record_id AS id, data, previous, version, created_at AS "createdAt", updated_at AS "updatedAt", ` +
      `logged_at AS "loggedAt" FROM changes WHERE collection = ${p('collection')} AND seq > ${p('after')} ORDER BY seq LIMIT ${p('limit')}`,
    'changes.read',
  );
  const bounds = statement<'collection'>(
    dialect.placeholder,
    (p) =>
      `SELECT (SELECT MIN(seq) FROM changes WHERE collection = ${p('collection')}) AS first, ` +
      `(SELECT seq FROM change_seqs WHERE collection = ${p('collection')}) AS last`,
    'changes.bounds',
  );
  const trim = statement<'before' | 'limit'>(
    dialect.placeholder,
    (p) =>
      `DELETE FROM changes WHERE (collection, seq) IN (SELECT collection, seq FROM changes ` +
      `WHERE logged_at < ${p('before')} ORDER BY logged_at LIMIT ${p('limit')})`,
  );
  const readNew = (statement: Sql) =>
    driver.readChanges ? driver.readChanges(statement) : driver.read(statement, false);
  return {
    read: async (collection, after, limit = CHANGES_PER_READ) =>
      (await guard(driver.read(read({ collection, after, limit }), false))).rows.map(decode),
    readNew: async (collection, after) =>
      (await guard(readNew(read({ collection, after, limit: CHANGES_PER_READ })))).rows.map(decode),
    async bounds(collection): Promise<ChangeBounds> {
      // So that a feed starting at `last` is sent nothing that committed before it started.
      await guard(driver.numberChanges?.() ?? Promise.resolve());
      const { rows } = await guard(driver.read(bounds({ collection }), false));
      const last = Number(rows[0]?.last ?? 0);
      const first = rows[0]?.first === null || rows[0]?.first === undefined ? last + 1 : Number(rows[0].first);
      return { first, last };
    },
    async trim(before) {
      let trimmed = 0;
      for (;;) {
        const { changes } = await guard(driver.write(trim({ before: before.toISOString(), limit: TRIM_BATCH })));
        trimmed += changes;
        if (changes < TRIM_BATCH) return trimmed;
      }
    },
    watch: sharedWatch((wake) => driver.watchChanges(wake)),
  };
}

/**
 * One watch of the driver's (on PostgreSQL a connection of its own, LISTENing) for every
 * watcher in the process (the change feeds, the files' reaper): started with the first,
 * stopped with the last.
 */
function sharedWatch(watchChanges: (wake: (collection?: string) => void) => () => void): ChangeLog['watch'] {
  const wakers = new Set<(collection?: string) => void>();
  let stop: (() => void) | undefined;
  return (wake) => {
    // Its own function each time, so that one watcher's wake given twice is two watchers.
    const waker = (collection?: string) => wake(collection);
    wakers.add(waker);
    stop ??= watchChanges((collection) => {
      for (const each of wakers) each(collection);
    });
    return () => {
      if (!wakers.delete(waker) || wakers.size > 0) return;
      stop?.();
      stop = undefined;
    };
  };
}

function decode(row: Record<string, unknown>): Change {
  const kind = String(row.kind);
  if (!KINDS.has(kind)) throw new Error(`the change log holds an unknown kind "${kind}"`);
  const record: StoredRecord = {
    id: Number(row.id),
    data: String(row.data),
    version: Number(row.version),
    createdAt: String(row.createdAt),
    updatedAt: String(row.updatedAt),
  };
  const previous = row.previous === null || row.previous === undefined ? undefined : String(row.previous);
  const loggedAt = row.loggedAt === null || row.loggedAt === undefined ? undefined : String(row.loggedAt);
  return {
    seq: Number(row.seq),
    kind: kind as Change['kind'],
    record,
    ...(previous !== undefined && { previous }),
    ...(loggedAt !== undefined && { loggedAt }),
  };
}
