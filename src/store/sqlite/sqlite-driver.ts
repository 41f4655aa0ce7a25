/**
 * The SQLite driver: better-sqlite3 on one file in WAL mode. Reads that may run long go
 * to a pool of threads with connections of their own (read-pool.ts); the rest run at once
 * on the event loop's connection. Every write and unit of work goes through
 * {@link GroupCommit}, which commits the writes that arrive together in one fsynced
 * transaction (`synchronous = FULL`), each under its own savepoint, before any of their
 * promises resolves.
 */
import type { SqlDriver } from '../sql/driver.js';
import { type Row, runProgram, sql } from '../sql/program.js';
import type { StoreOptions } from '../store.js';
import { BUSY_TIMEOUT_MS, named, openDatabase, runLocked, statementRunner } from './connection.js';
import { GroupCommit } from './group-commit.js';
import { ReadPool } from './read-pool.js';
import { sqliteFaults } from './sqlite-faults.js';

/**
 * How often the change feeds look for changes another process committed (a worker of
 * WORKERS=N, a command). A look asks SQLite's `data_version`, which moves only with another
 * connection's commits: it reads no table, and wakes the feeds only when there is something
 * to read. This process's own commits wake them at once.
 */
const CHANGE_POLL_MS = 20;

/** Opens (creating when needed) the database file at `path`, or `:memory:`. */
export function openSqliteDriver(
  path: string,
  options: Pick<StoreOptions, 'statementTimeoutMs' | 'lockTimeoutMs'>,
): SqlDriver {
  const lockTimeoutMs = options.lockTimeoutMs ?? BUSY_TIMEOUT_MS;
  const db = openDatabase(path);
  const run = statementRunner(db);
  // A lock another process holds is waited for by group commit between turns of the event
  // loop, never inside a statement on it (locked() alone waits inside, at start).
  db.pragma('busy_timeout = 0');
  // The watchers of the change log (the feeds' hubs, the files' reaper), woken by each commit.
  const watchers = new Set<(collection?: string) => void>();
  const commits = new GroupCommit(db, {
    busyTimeoutMs: lockTimeoutMs,
    onCommit: () => {
      for (const wake of watchers) wake();
    },
  });
  // A database in memory is one connection's alone: its reads stay on the event loop.
  const reads =
    path === ':memory:'
      ? undefined
      : new ReadPool({ path, timeoutMs: options.statementTimeoutMs, busyTimeoutMs: lockTimeoutMs });
  const pageCount = db.prepare('PRAGMA page_count').pluck();
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const readSchema = db.prepare('SELECT 1 FROM sqlite_master LIMIT 1');
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  return {
    name: 'sqlite',
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
    async read(statement, costly, maxBytes) {
      if (!costly || !reads) return run(statement, maxBytes);
      const rows = await reads.run(statement.text, named(statement.values), maxBytes);
      return { rows, changes: 0 };
    },
    // Asking the planner is cheap: it runs on the event loop's connection. An EXPLAIN reads
    // no table, so it would describe indexes another connection has dropped since: a read of
    // the schema table first brings the connection's schema up to date.
    async plan({ text, values }) {
      readSchema.get();
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(named(values)) as Row[];
      return { rows, changes: 0 };
    },
    write: (statement) => commits.run(() => run(statement)),
    transaction: (work) => commits.run(() => runProgram(work(), run)),
    async locked(work) {
      db.pragma(`busy_timeout = ${lockTimeoutMs}`);
      try {
        return runLocked(db, run, work());
      } finally {
        db.pragma('busy_timeout = 0');
      }
    },
    fault: sqliteFaults(db),
    watchChanges(wake) {
      // Its own function, so that the same wake watching twice is two watchers.
      const watcher = (collection?: string) => wake(collection);
      watchers.add(watcher);
      // Another process (--workers, a command) may write the file: a short poll sees its commits.
      let version = dataVersion.get();
      const poll = setInterval(() => {
        const now = dataVersion.get();
        if (now === version) return;
        version = now;
        wake();
      }, CHANGE_POLL_MS);
      poll.unref();
      return () => {
        watchers.delete(watcher);
        clearInterval(poll);
      };
    },
    async ping() {
      run(sql('SELECT 1'));
    },
    async close() {
      if (!db.open) return;
      await reads?.close();
      commits.drain();
      db.close();
    },
  };
}
