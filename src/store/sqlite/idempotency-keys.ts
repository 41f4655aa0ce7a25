/**
 * `Idempotency-Key`s on SQLite: claims, releases and the sweep, each a unit of work of
 * the group commit; and the statements a collection's writes run inside their own unit.
 */
import type { Database as Db } from 'better-sqlite3';
import { type StoredKey, settledClaim } from '../sql/idempotency-claim.js';
import type { IdempotencyKeys, IdempotentCreate, StoredRecord } from '../store.js';
import type { GroupCommit } from './group-commit.js';

export function sqliteIdempotencyKeys(db: Db, commits: GroupCommit): IdempotencyKeys {
  const insert = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, fingerprint, token, state, claimed_at, created_at)
     VALUES (?, ?, ?, ?, 'running', ?, ?) ON CONFLICT DO NOTHING`,
  );
  const find = db.prepare(
    `SELECT fingerprint, state, token, collection, record, record_id AS recordId, claimed_at AS claimedAt
     FROM idempotency_keys WHERE scope = ? AND key = ?`,
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
    const found = find.get(scope, key) as StoredKey & { token: string; claimedAt: number };
    const settled = settledClaim(found, fingerprint);
    if (settled) return settled;
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

/** What a collection's writes do to the keys, inside their own unit of work. */
export interface IdempotencyWrites {
  /** Completes this request's claim with the record it created; false if the claim is no longer its. */
  complete(table: string, record: StoredRecord, claim: IdempotentCreate): boolean;
  /** Drops the copy a key keeps of a record being deleted, keeping that it was created and by which key. */
  forget(table: string, id: number): void;
}

export function sqliteIdempotencyWrites(db: Db): IdempotencyWrites {
  const complete = db.prepare(
    `UPDATE idempotency_keys SET state = 'done', collection = ?, record = ?, record_id = ?
     WHERE scope = ? AND key = ? AND token = ? AND state = 'running'`,
  );
  const forget = db.prepare('UPDATE idempotency_keys SET record = NULL WHERE collection = ? AND record_id = ?');
  return {
    complete: (table, record, { scope, key, token }) =>
      complete.run(table, JSON.stringify(record), record.id, scope, key, token).changes === 1,
    forget(table, id) {
      forget.run(table, id);
    },
  };
}
