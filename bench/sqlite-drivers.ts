/**
 * Which SQLite driver restock can use on which Node.js, decided by measurement: the drivers
 * the running Node can load, on the statements restock's SQLite store runs, each on a file
 * of its own in a temporary directory, in WAL mode with `synchronous = FULL`.
 *
 *   node --import tsx bench/sqlite-drivers.ts [--seconds 1] [--reps 3] [--dir /tmp]
 *
 * The candidates:
 * - better-sqlite3 12 through `restock-sqlite-node20`, on Node 20 only (12 aborts on Node
 *   24, and its binary is built for Node 20's ABI);
 * - `better-sqlite3` 13 (Node-API), on Node >= 22 only: it segfaults while loading on Node
 *   20, so it is never even required there;
 * - `node:sqlite` (`DatabaseSync`), built into Node >= 22.5.
 *
 * The scenarios, with the SQL of src/store/sql/sql-collection.ts and list-sql.ts:
 * - a read of one record by id (one prepared statement, reused);
 * - a page of 100 records after a cursor on id, as `GET /products/?after=…` runs it;
 * - inserts through group commit's shape (src/store/sqlite/group-commit.ts): BEGIN
 *   IMMEDIATE, a SAVEPOINT around each `INSERT … RETURNING`, COMMIT (fsynced); 32 inserts
 *   per transaction, then a lone insert per transaction;
 * - merges (`json_patch` in an `UPDATE … RETURNING`), 32 per transaction.
 * Only the statements are timed, not what restock does with the rows afterwards (the same
 * for every driver). Each candidate runs each scenario for `--seconds`, `--reps` times,
 * the candidates taking turns on each scenario; the table shows the median, in operations
 * (reads, pages, inserts, merges) per second, and each candidate's ratio to better-sqlite3
 * on the same Node. The fsynced scenarios go as fast as the disk's fsync: on a shared host,
 * compare them only within one run.
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type BetterSqlite3 from 'better-sqlite3';
import { FOLD_CASE_FUNCTION, foldCase } from '../src/store/sql/case-fold.js';
import { selectPage } from '../src/store/sql/list-sql.js';
import { collectionSql, recordColumns } from '../src/store/sql/record-sql.js';
import { sqliteAdapter, sqliteDialect } from '../src/store/sqlite/sqlite-dialect.js';
import { median } from './median.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '1' },
    reps: { type: 'string', default: '3' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const SECONDS = Number(args.seconds);
const REPS = Number(args.reps);
const RECORDS = 10_000;
const BATCH = 32;
const PAGE = 100;
const TABLE = 'products';

// ---------------------------------------------------------------------------------------
// The drivers, behind the few methods both shapes of API share.

type Bindable = number | string | null;
type Params = Bindable | Record<string, Bindable>;

interface SqlStatement {
  run(...params: Params[]): unknown;
  get(...params: Params[]): unknown;
  all(...params: Params[]): unknown[];
}

interface SqlDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqlStatement;
  function(name: string, options: { deterministic: boolean }, fn: (...args: unknown[]) => unknown): unknown;
  close(): unknown;
}

/**
 * The part of `node:sqlite` used here. The repository's @types/node is v20, which has no
 * `node:sqlite` (it is new in Node 22.5), so its types are declared here, and the module is
 * loaded by a dynamic import of a specifier held in a variable, which TypeScript does not
 * try to resolve (and which Node 20 never reaches).
 */
interface NodeSqliteModule {
  DatabaseSync: new (path: string) => SqlDatabase;
  /** Node >= 22.16 (and 23.8): copies `source` into the file at `path`; resolves with the pages copied. */
  backup?: (source: SqlDatabase, path: string) => Promise<number>;
}

interface Opened {
  db: SqlDatabase;
  backup(path: string): Promise<unknown>;
}

interface Candidate {
  name: string;
  open(path: string): Opened;
}

const require = createRequire(import.meta.url);

function versionOf(pkg: string): string {
  return (require(`${pkg}/package.json`) as { version: string }).version;
}

function betterSqlite3(name: string, Database: typeof BetterSqlite3): Candidate {
  return {
    name,
    open(path) {
      const db = new Database(path);
      return { db, backup: (to) => db.backup(to) };
    },
  };
}

/** Whether node:sqlite emitted a warning (Node prints it too, to stderr). */
const warnings: string[] = [];
process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));

async function loadCandidates(): Promise<Candidate[]> {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22) {
    const Database = require('restock-sqlite-node20') as typeof BetterSqlite3;
    const version = createRequire(require.resolve('restock-sqlite-node20'))('better-sqlite3/package.json').version;
    return [betterSqlite3(`better-sqlite3 ${version} (restock-sqlite-node20)`, Database)];
  }
  const candidates = [
    betterSqlite3(`better-sqlite3 ${versionOf('better-sqlite3')}`, require('better-sqlite3') as typeof BetterSqlite3),
  ];
  if (major > 22 || minor >= 5) {
    const specifier = 'node:sqlite';
    const sqlite = (await import(specifier)) as NodeSqliteModule;
    const { backup } = sqlite;
    candidates.push({
      name: 'node:sqlite',
      open(path) {
        const db = new sqlite.DatabaseSync(path);
        return {
          db,
          backup: (to) => (backup ? backup(db, to) : Promise.reject(new Error('no backup() in this Node'))),
        };
      },
    });
  }
  return candidates;
}

// ---------------------------------------------------------------------------------------
// The database, as src/store/sqlite/connection.ts and sqlite-tables.ts make it.

function openLikeRestock(candidate: Candidate, path: string): Opened {
  const opened = candidate.open(path);
  const { db } = opened;
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.function(FOLD_CASE_FUNCTION, { deterministic: true }, (text) => foldCase(String(text)));
  db.exec(`
    CREATE TABLE IF NOT EXISTS "${TABLE}" (
      id         INTEGER PRIMARY KEY AUTOINCREMENT,
      data       TEXT    NOT NULL CHECK (json_valid(data)),
      version    INTEGER NOT NULL DEFAULT 1,
      created_at TEXT    NOT NULL,
      updated_at TEXT    NOT NULL
    ) STRICT`);
  return opened;
}

/** Products as bench/seed.ts makes them, generated inside SQLite in one transaction. */
function seed(db: SqlDatabase): void {
  const now = new Date().toISOString();
  db.exec('BEGIN IMMEDIATE');
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO "${TABLE}" (data, created_at, updated_at) SELECT json_object(
       'name', 'Product ' || i, 'sku', printf('SKU-%08d', i), 'price', (i % 10000) / 100.0 + 1,
       'stock', i % 500, 'category', CASE i % 4 WHEN 0 THEN 'kitchen' WHEN 1 THEN 'garden' WHEN 2 THEN 'toys' ELSE 'books' END,
       'description', 'A fine product, number ' || i || ', made to last and priced to sell.'), ?, ? FROM n`,
  ).run(RECORDS, now, now);
  db.exec('COMMIT');
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
}

// ---------------------------------------------------------------------------------------
// The scenarios. Each returns an operation that does some work and says how many operations
// (reads, pages, inserts or merges) it did.

type Operation = (i: number) => number;

const SCENARIOS: Record<string, (db: SqlDatabase) => Operation> = {
  'read one by id': (db) => {
    // @p1 is the id (see sql-collection.ts).
    const get = db.prepare(collectionSql(sqliteDialect, TABLE).get({ id: 0 }).text);
    return (i) => {
      if (get.get({ p1: ((i * 7919) % RECORDS) + 1 }) === undefined) throw new Error('missing record');
      return 1;
    };
  },
  'page of 100 by id': (db) => {
    const query = selectPage(
      { dialect: sqliteDialect, adapter: sqliteAdapter },
      () => false,
      TABLE,
      recordColumns(sqliteDialect),
      {
        where: [],
        sort: [],
        limit: PAGE,
        after: [0],
      },
    );
    const page = db.prepare(query.text);
    return (i) => {
      // @p1 is the limit, @p2 the cursor's id (see list-sql.ts).
      const rows = page.all({ p1: PAGE, p2: ((i * PAGE) % (RECORDS - PAGE)) + 1 });
      if (rows.length !== PAGE) throw new Error(`a page of ${rows.length}`);
      return 1;
    };
  },
  'insert, 32 per commit': (db) => groupCommit(db, BATCH, inserter(db)),
  'insert, 1 per commit': (db) => groupCommit(db, 1, inserter(db)),
  'merge, 32 per commit': (db) => {
    // The merge statement restock ran when the drivers were compared (merges now run in the
    // application, src/store/merge-patch.ts): a driver's cost per statement, as before.
    const merge = db.prepare(
      `UPDATE "${TABLE}" SET data = json_patch(data, ?), version = version + 1, updated_at = ? WHERE id = ? RETURNING id`,
    );
    return groupCommit(db, BATCH, (i) => {
      const now = new Date().toISOString();
      const patch = `{"stock":${i % 500},"price":${(i % 10000) / 100 + 1}}`;
      if (merge.get(patch, now, ((i * 7919) % RECORDS) + 1) === undefined) throw new Error('missing record');
    });
  },
};

function inserter(db: SqlDatabase): (i: number) => void {
  // @p1 is the record's fields, @p2 the time (see sql-collection.ts).
  const insert = db.prepare(collectionSql(sqliteDialect, TABLE).insert({ data: '', now: '' }).text);
  return (i) => {
    const now = new Date().toISOString();
    insert.get({
      p1: `{"name":"New product ${i}","sku":"NEW-${i}","price":9.99,"stock":5,"category":"toys","description":"Made in the benchmark."}`,
      p2: now,
    });
  };
}

/** One transaction as GroupCommit makes it of `size` units of work, each under its own savepoint. */
function groupCommit(db: SqlDatabase, size: number, unit: (i: number) => void): Operation {
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const savepoint = db.prepare('SAVEPOINT unit');
  const release = db.prepare('RELEASE unit');
  return (i) => {
    begin.run();
    for (let k = 0; k < size; k++) {
      savepoint.run();
      unit(i * size + k);
      release.run();
    }
    commit.run();
    return size;
  };
}

interface Measurement {
  /** Operations per second of wall-clock time. */
  rate: number;
  /** The process's CPU time (user and system) per operation, in µs: less moved by other load on the host. */
  cpu: number;
}

/** Runs `operation` for `seconds`. */
function measure(operation: Operation, seconds: number): Measurement {
  let done = 0;
  let i = 0;
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const until = start + seconds * 1000;
  let now = start;
  while (now < until) {
    done += operation(i++);
    now = performance.now();
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { rate: (done * 1000) / (now - start), cpu: (cpu.user + cpu.system) / done };
}

// ---------------------------------------------------------------------------------------
// What each candidate can do beyond the scenarios: its SQLite, FTS5 with the trigram
// tokenizer, a user-defined function, an online backup.

interface Facts {
  sqlite: string;
  journal: string;
  synchronous: string;
  fts5Trigram: string;
  userFunction: string;
  backup: string;
}

async function factsOf(candidate: Candidate, dir: string): Promise<Facts> {
  const opened = openLikeRestock(candidate, join(dir, 'facts.db'));
  const { db } = opened;
  const one = (sql: string) => Object.values(db.prepare(sql).get() as Record<string, unknown>)[0];
  const attempt = (run: () => unknown) => {
    try {
      return String(run());
    } catch (error) {
      return `fails: ${(error as Error).message}`;
    }
  };
  const facts: Facts = {
    sqlite: String(one('SELECT sqlite_version()')),
    journal: String(one('PRAGMA journal_mode')),
    synchronous: String(one('PRAGMA synchronous')),
    fts5Trigram: attempt(() => {
      db.exec(`CREATE VIRTUAL TABLE search USING fts5(a, tokenize='trigram')`);
      db.prepare('INSERT INTO search (a) VALUES (?)').run('Wooden garden chair');
      const hits = one(`SELECT count(*) FROM search WHERE search MATCH 'rden'`);
      return hits === 1 ? 'yes' : `no (${String(hits)} hits)`;
    }),
    userFunction: attempt(() => (one(`SELECT ${FOLD_CASE_FUNCTION}('ÉCOLE')`) === foldCase('ÉCOLE') ? 'yes' : 'no')),
    backup: 'no',
  };
  try {
    await opened.backup(join(dir, 'facts-backup.db'));
    const copy = candidate.open(join(dir, 'facts-backup.db')).db;
    facts.backup = copy.prepare('SELECT count(*) AS n FROM search').get() ? 'yes' : 'no';
    copy.close();
  } catch (error) {
    facts.backup = `fails: ${(error as Error).message}`;
  }
  db.close();
  return facts;
}

// ---------------------------------------------------------------------------------------

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((row) => (row[c] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join(' | ')} |`;
  return [line(headers), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

const EXT4 = 0xef53;
const TMPFS = 0x01021994;

async function main(): Promise<void> {
  const candidates = await loadCandidates();
  const dir = mkdtempSync(join(args.dir, 'restock-sqlite-drivers-'));
  const fsType = statfsSync(dir).type;
  try {
    console.log(
      `Node ${process.version}, ${RECORDS.toLocaleString('en-US')} records, ${REPS} repetitions of ${SECONDS} s, medians; files in ${dir} (${fsType === EXT4 ? 'ext4' : `filesystem type 0x${fsType.toString(16)}`})`,
    );
    if (fsType === TMPFS) console.log('WARNING: tmpfs: fsync costs nothing here; pass --dir on a real disk.');

    const facts = new Map<string, Facts>();
    for (const candidate of candidates) {
      facts.set(candidate.name, await factsOf(candidate, dir));
      rmSync(join(dir, 'facts.db'), { force: true });
      rmSync(join(dir, 'facts-backup.db'), { force: true });
    }

    const databases = candidates.map((candidate, n) => {
      const { db } = openLikeRestock(candidate, join(dir, `bench-${n}.db`));
      seed(db);
      return { candidate, db, operations: new Map<string, Operation>() };
    });
    const measured = new Map<string, Measurement[]>();
    const key = (scenario: string, candidate: string) => `${scenario}\0${candidate}`;
    // Candidates take turns on each scenario, in alternating order, so that the figures
    // compared were taken seconds apart: this host's disk and CPU change speed from minute to minute.
    for (let rep = 0; rep < REPS; rep++) {
      for (const [scenario, make] of Object.entries(SCENARIOS)) {
        const order = rep % 2 ? [...databases].reverse() : databases;
        for (const { candidate, db, operations } of order) {
          let operation = operations.get(scenario);
          if (!operation) {
            operation = make(db);
            operations.set(scenario, operation);
            measure(operation, Math.min(0.2, SECONDS)); // warm-up: JIT, page cache
          }
          const at = key(scenario, candidate.name);
          measured.set(at, [...(measured.get(at) ?? []), measure(operation, SECONDS)]);
        }
      }
    }
    for (const { db } of databases) db.close();

    const names = candidates.map((c) => c.name);
    const [reference] = names;
    const others = names.slice(1);
    const report = (title: string, of: (m: Measurement) => number, digits: number) => {
      console.log();
      console.log(
        table(
          [title, ...names, ...others.map((name) => `${name} ÷ ${reference}`)],
          Object.keys(SCENARIOS).map((scenario) => {
            const medians = names.map((name) => median((measured.get(key(scenario, name)) ?? []).map(of)));
            const base = medians[0] ?? Number.NaN;
            return [
              scenario,
              ...medians.map((m) =>
                m.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }),
              ),
              ...medians.slice(1).map((m) => (m / base).toFixed(2)),
            ];
          }),
        ),
      );
    };
    report('Scenario (ops/s)', (m) => m.rate, 0);
    report('Scenario (CPU µs per op, lower is better)', (m) => m.cpu, 1);
    console.log();
    console.log(
      table(
        ['Candidate', 'SQLite', 'journal', 'synchronous', 'FTS5 trigram', 'db.function', 'backup'],
        names.map((name) => {
          const f = facts.get(name);
          return f ? [name, f.sqlite, f.journal, f.synchronous, f.fts5Trigram, f.userFunction, f.backup] : [name];
        }),
      ),
    );
    console.log();
    console.log(`Process warnings: ${warnings.length > 0 ? warnings.join('; ') : 'none'}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
