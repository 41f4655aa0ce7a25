/**
 * How long group commit holds the event loop per batch: `node --import tsx bench/fsync.ts
 * [--batches N] [--dir DIR]`. On a database opened as restock opens it (WAL,
 * synchronous = FULL), runs batches of 1, 10 and 100 inserts of a user, each the way group
 * commit does (BEGIN IMMEDIATE, a savepoint per write, COMMIT), and prints how long the
 * statements took and how long COMMIT took (its fsync): the time the event loop stands
 * still. This decides whether the fsync should leave the main thread (bench/README.md).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Statement } from 'better-sqlite3';
import { collectionSql } from '../src/store/sql/record-sql.js';
import { named, openConnection } from '../src/store/sqlite/connection.js';
import { sqliteDialect } from '../src/store/sqlite/sqlite-dialect.js';
import { CATALOG } from './schema.js';

const { values: args } = parseArgs({
  options: { batches: { type: 'string', default: '200' }, dir: { type: 'string', default: tmpdir() } },
});
const BATCHES = Number(args.batches);
const dir = mkdtempSync(join(args.dir as string, 'restock-fsync-'));

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? Number.NaN;

try {
  const db = openConnection(join(dir, 'fsync.db'), CATALOG);
  const insertSql = collectionSql(sqliteDialect, 'users').insert;
  const insert = db.prepare(insertSql({ data: '', now: '' }).text);
  const statement = (sql: string): Statement => db.prepare(sql);
  const [begin, savepoint, release, commit] = ['BEGIN IMMEDIATE', 'SAVEPOINT unit', 'RELEASE unit', 'COMMIT'].map(
    statement,
  ) as [Statement, Statement, Statement, Statement];
  const user = JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', tags: ['customer', 'gold'] });
  process.stdout.write('writes/batch  statements p50  COMMIT p50  COMMIT p99  COMMIT max   (ms, event loop held)\n');
  for (const size of [1, 10, 100]) {
    const statements: number[] = [];
    const commits: number[] = [];
    for (let b = 0; b < BATCHES; b++) {
      const started = performance.now();
      begin.run();
      const now = new Date().toISOString();
      for (let i = 0; i < size; i++) {
        savepoint.run();
        insert.get(named(insertSql({ data: user, now }).values));
        release.run();
      }
      const written = performance.now();
      commit.run();
      statements.push(written - started);
      commits.push(performance.now() - written);
    }
    const row = [percentile(statements, 50), percentile(commits, 50), percentile(commits, 99), Math.max(...commits)];
    process.stdout.write(`${String(size).padStart(12)}  ${row.map((ms) => ms.toFixed(3).padStart(14)).join('')}\n`);
  }
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
