/**
 * `Idempotency-Key`s on PostgreSQL: claims, releases and the sweep.
 */
import type pg from 'pg';
import { type StoredKey, settledClaim } from '../sql/idempotency-claim.js';
import type { IdempotencyKeys } from '../store.js';

export function postgresIdempotencyKeys(
  pool: pg.Pool,
  guard: <T>(run: () => Promise<T>) => Promise<T>,
): IdempotencyKeys {
  const query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) =>
    guard(() => pool.query<R>(text, values));
  return {
    async claim(scope, key, fingerprint, token, staleAfterMs) {
      // A claim released between the INSERT and the SELECT is tried again, a few times.
      for (let attempt = 0; attempt < 3; attempt++) {
        const inserted = await query(
          `INSERT INTO idempotency_keys (scope, key, fingerprint, token, state) VALUES ($1, $2, $3, $4, 'running')
           ON CONFLICT DO NOTHING`,
          [scope, key, fingerprint, token],
        );
        if (inserted.rowCount === 1) return { state: 'claimed' };
        const { rows } = await query<StoredKey & { token: string; stale: boolean }>(
          `SELECT fingerprint, state, token, collection, record, record_id AS "recordId",
                  claimed_at < now() - $3 * interval '1 millisecond' AS stale
           FROM idempotency_keys WHERE scope = $1 AND key = $2`,
          [scope, key, staleAfterMs],
        );
        const found = rows[0];
        if (!found) continue;
        const settled = settledClaim(found, fingerprint);
        if (settled) return settled;
        if (!found.stale) return { state: 'running' };
        const takeover = await query(
          `UPDATE idempotency_keys SET token = $3, claimed_at = now()
           WHERE scope = $1 AND key = $2 AND token = $4 AND state = 'running'`,
          [scope, key, token, found.token],
        );
        return { state: takeover.rowCount === 1 ? 'claimed' : 'running' };
      }
      return { state: 'running' };
    },
    async release(scope, key, token) {
      await query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'running'`, [
        scope,
        key,
        token,
      ]);
    },
    async sweep(before) {
      const result = await query('DELETE FROM idempotency_keys WHERE created_at < $1', [before]);
      return result.rowCount ?? 0;
    },
  };
}
