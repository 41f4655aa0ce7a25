/**
 * Group commit in the SQLite store: writes queued together share one transaction, a
 * failing one fails alone, and nothing is acknowledged that another connection cannot see.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Database as Db } from 'better-sqlite3';
import { openConnection } from '../src/store/sqlite/connection.js';
import { GroupCommit } from '../src/store/sqlite/group-commit.js';
import Database from '../src/store/sqlite/sqlite-library.js';
import { catalogOf } from './helpers/catalog.js';

describe('group commit (sqlite)', () => {
  let dir: string;
  let path: string;
  let db: Db;
  let commits: GroupCommit;
  /** A second connection, as another process would have: it sees only what was committed. */
  let other: Db;
  const insert = (data: string) => () =>
    db
      .prepare('INSERT INTO things (data, created_at, updated_at) VALUES (?, 0, 0) RETURNING id')
      .pluck()
      .get(data) as number;
  const stored = (data: string) => other.prepare('SELECT count(*) FROM things WHERE data = ?').pluck().get(data);

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'restock-group-'));
    path = join(dir, 'group.db');
    db = openConnection(path, catalogOf(['things']));
    commits = new GroupCommit(db);
    other = new Database(path);
  });
  after(() => {
    other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits writes queued together in one transaction; a failing one rejects alone', async () => {
    const start = { ...commits.stats };
    const payloads = Array.from({ length: 20 }, (_, i) => `{"n":${i},"batch":"one"}`);
    // A real failure: the table's CHECK (json_valid(data)) refuses text that is not JSON.
    payloads[7] = 'not json';
    const settled = await Promise.allSettled(payloads.map((data) => commits.run(insert(data))));

    assert.equal(commits.stats.batches - start.batches, 1, 'one transaction for the whole burst');
    assert.equal(commits.stats.units - start.units, 20);
    const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [i] : []));
    assert.deepEqual(failed, [7]);
    assert.match(String((settled[7] as PromiseRejectedResult).reason), /CHECK constraint failed/);
    for (const [i, data] of payloads.entries()) assert.equal(stored(data), i === 7 ? 0 : 1, `record ${i}`);
  });

  it('rolls back every statement of a failing unit, and none of the others', async () => {
    const results = await Promise.allSettled([
      commits.run(insert('{"unit":"before"}')),
      commits.run(() => {
        insert('{"unit":"failing","part":1}')();
        insert('{"unit":"failing","part":2}')();
        throw new Error('the unit changes its mind after two inserts');
      }),
      commits.run(insert('{"unit":"after"}')),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal(stored('{"unit":"before"}'), 1);
    assert.equal(stored('{"unit":"failing","part":1}'), 0);
    assert.equal(stored('{"unit":"failing","part":2}'), 0);
    assert.equal(stored('{"unit":"after"}'), 1);
  });

  it('settles a write only once another connection can read it', async () => {
    const seenAtAck = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        commits
          .run(insert(`{"ack":${i}}`))
          .then(() => ({ inTransaction: db.inTransaction, seen: stored(`{"ack":${i}}`) })),
      ),
    );
    for (const at of seenAtAck) assert.deepEqual(at, { inTransaction: false, seen: 1 });
  });

  it('fails the whole batch, mapped, when the write lock stays taken, then recovers', async () => {
    const mapped = new GroupCommit(db, {
      mapError: (error) => new Error('mapped', { cause: error }),
      // Long enough to retry a few times (1 to 25 ms apart), short enough not to wait 5 s.
      busyTimeoutMs: 100,
    });
    db.pragma('busy_timeout = 50');
    // A real fault: another connection holds the write lock past the busy timeout.
    other.exec('BEGIN IMMEDIATE');
    try {
      const settled = await Promise.allSettled([
        mapped.run(insert('{"locked":1}')),
        mapped.run(insert('{"locked":2}')),
      ]);
      for (const s of settled) {
        assert.equal(s.status, 'rejected');
        const reason = (s as PromiseRejectedResult).reason as Error & { cause: { code: string } };
        assert.equal(reason.message, 'mapped');
        assert.equal(reason.cause.code, 'SQLITE_BUSY');
      }
    } finally {
      other.exec('ROLLBACK');
      db.pragma('busy_timeout = 5000');
    }
    assert.equal(stored('{"locked":1}'), 0);
    assert.ok((await mapped.run(insert('{"locked":3}'))) > 0);
    assert.equal(stored('{"locked":3}'), 1);
  });

  it('commits what is queued when drained, before the database closes', async () => {
    const pending = [commits.run(insert('{"drained":1}')), commits.run(insert('{"drained":2}'))];
    commits.drain();
    assert.equal(stored('{"drained":1}'), 1);
    assert.equal(stored('{"drained":2}'), 1);
    await Promise.all(pending);
  });
});
