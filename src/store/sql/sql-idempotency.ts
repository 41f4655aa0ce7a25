/**
 * `Idempotency-Key`s on any SQL database: a claim, its release, its completion with the
 * record a create made, and the sweep of old keys, written once. Keys live in the
 * database, so that every instance sees them and they outlive restarts.
 */
import {
  BATCH_ANSWER,
  type IdempotencyClaim,
  type IdempotencyKeys,
  type IdempotentCreate,
  type StoredRecord,
} from '../store.js';
import type { SqlDialect } from './dialect.js';
import type { Guard } from './driver.js';
import type { SqlEngine } from './engine.js';
import { type StoredKey, settledClaim } from './idempotency-claim.js';
import { first, type Program, type Sql, statement } from './program.js';
import { serverSecret } from './server-secrets.js';

/** How many times a claim looks again for a key released between its INSERT and its SELECT. */
const CLAIM_ATTEMPTS = 3;

/**
 * Completes `claim` with the record its create made (or the records of a bulk create, kept
 * with no `record_id`: a delete finds them in the copy itself), in the create's
 * transaction; changes 0 rows if the claim is no longer its.
 */
export function completeClaim(
  dialect: SqlDialect,
  table: string,
  record: StoredRecord | readonly StoredRecord[],
  claim: IdempotentCreate,
): Sql {
  return completed(dialect, table, JSON.stringify(record), 'id' in record ? record.id : null, claim);
}

/**
 * Completes `claim` with a batch's answer: kept under no collection, so that no delete
 * changes it (a retry hears the batch's answer as it was).
 */
export function completeBatchClaim(dialect: SqlDialect, answer: string, claim: IdempotentCreate): Sql {
  return completed(dialect, BATCH_ANSWER, answer, null, claim);
}

function completed(
  dialect: SqlDialect,
  table: string,
  record: string,
  id: number | null,
  claim: IdempotentCreate,
): Sql {
  return statement<'scope' | 'key' | 'token' | 'collection' | 'record' | 'id'>(
    dialect.placeholder,
    (p) =>
      `UPDATE idempotency_keys SET state = 'done', collection = ${p('collection')}, record = ${p('record')}, ` +
      `record_id = ${p('id')} WHERE scope = ${p('scope')} AND key = ${p('key')} AND token = ${p('token')} ` +
      `AND state = 'running'`,
  )({ ...claim, collection: table, record, id });
}

export function sqlIdempotencyKeys({ driver, dialect }: SqlEngine, guard: Guard): IdempotencyKeys {
  const fingerprintKey = serverSecret({ driver, dialect }, guard, 'idempotency fingerprints');
  const { placeholder, keyClock } = dialect;
  const ofKey = (p: (name: 'scope' | 'key') => string) => `scope = ${p('scope')} AND key = ${p('key')}`;
  const insert = statement<'scope' | 'key' | 'fingerprint' | 'token'>(
    placeholder,
    (p) =>
      `INSERT INTO idempotency_keys (scope, key, fingerprint, token, state, claimed_at, created_at) VALUES ` +
      `(${p('scope')}, ${p('key')}, ${p('fingerprint')}, ${p('token')}, 'running', ${keyClock.now}, ${keyClock.now}) ` +
      'ON CONFLICT DO NOTHING',
  );
  const find = statement<'scope' | 'key' | 'staleAfterMs'>(
    placeholder,
    (p) =>
      `SELECT fingerprint, state, token, collection, record, record_id AS "recordId", ` +
      `claimed_at < ${keyClock.ago(p('staleAfterMs'))} AS stale FROM idempotency_keys WHERE ${ofKey(p)}`,
  );
  const takeOver = statement<'scope' | 'key' | 'token' | 'from'>(
    placeholder,
    (p) =>
      `UPDATE idempotency_keys SET token = ${p('token')}, claimed_at = ${keyClock.now} ` +
      `WHERE ${ofKey(p)} AND token = ${p('from')} AND state = 'running'`,
  );
  const release = statement<'scope' | 'key' | 'token'>(
    placeholder,
    (p) => `DELETE FROM idempotency_keys WHERE ${ofKey(p)} AND token = ${p('token')} AND state = 'running'`,
  );
  const sweep = statement<'ageMs'>(
    placeholder,
    (p) => `DELETE FROM idempotency_keys WHERE created_at < ${keyClock.ago(p('ageMs'))}`,
  );

  // One transaction: on SQLite it holds the write lock, which makes claim-or-read one step
  // across processes; on PostgreSQL a key released between the INSERT and the SELECT is
  // looked for again, a few times.
  function* claim(
    scope: string,
    key: string,
    fingerprint: string,
    token: string,
    staleAfterMs: number,
  ): Program<IdempotencyClaim> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if ((yield insert({ scope, key, fingerprint, token })).changes === 1) return { state: 'claimed' } as const;
      const found = yield* first<StoredKey & { token: string; stale: unknown }>(find({ scope, key, staleAfterMs }));
      if (!found) continue;
      const settled = settledClaim(found, fingerprint);
      if (settled) return settled;
      if (!found.stale) return { state: 'running' } as const;
      const taken = yield takeOver({ scope, key, token, from: found.token });
      return { state: taken.changes === 1 ? 'claimed' : 'running' } as const;
    }
    return { state: 'running' } as const;
  }

  return {
    claim: (...args) => guard(driver.transaction(() => claim(...args))),
    async release(scope, key, token) {
      await guard(driver.write(release({ scope, key, token })));
    },
    async sweep(before) {
      // `before` as an age on the database's clock; a moment still to come is a negative age.
      return (await guard(driver.write(sweep({ ageMs: Date.now() - before.getTime() })))).changes;
    },
    fingerprintKey,
  };
}
