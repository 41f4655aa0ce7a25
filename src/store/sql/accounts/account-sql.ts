/**
 * The account tables (./account-tables.ts) on any SQL database: signing keys and refresh
 * tokens, written once, with the flows' tables (./flow-sql.ts). A refresh and a revocation of one family each lock its row of
 * `refresh_families` first (SQLite's writes take turns anyway), so that on PostgreSQL a
 * revocation never misses the token a refresh is adding, and of two refreshes racing with
 * one token, the second finds it used. Revoked is the family's state alone: one row
 * written, never its tokens' rows, which a sweep deleting them in another order could
 * deadlock with.
 */
import type { AccountTables, RefreshOutcome, SigningKeyRow } from '../../account-model.js';
import type { Guard } from '../driver.js';
import type { SqlEngine } from '../engine.js';
import { first, type Program, sql, statement } from '../program.js';
import { flowSql, sqlFlowTables } from './flow-sql.js';

interface TokenRow {
  family: string;
  collection: string;
  accountId: number;
  expiresAt: number;
  /** 'revoked' is its family's state, read with it. */
  state: 'live' | 'used' | 'revoked';
}

export function sqlAccountTables(
  { driver, dialect }: Pick<SqlEngine, 'driver' | 'dialect'>,
  guard: Guard,
): AccountTables {
  const { placeholder, forUpdate } = dialect;
  const flows = flowSql(dialect);
  const listKeys = sql(
    `SELECT kid, private_jwk AS "privateJwk", public_jwk AS "publicJwk", created_at AS "createdAt", ` +
      `superseded_at AS "supersededAt" FROM signing_keys ORDER BY created_at DESC, kid DESC`,
  );
  const supersede = statement<'now'>(
    placeholder,
    (p) => `UPDATE signing_keys SET superseded_at = ${p('now')} WHERE superseded_at IS NULL`,
  );
  const insertKey = statement<'kid' | 'privateJwk' | 'publicJwk' | 'createdAt'>(
    placeholder,
    (p) =>
      'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) ' +
      `VALUES (${p('kid')}, ${p('privateJwk')}, ${p('publicJwk')}, ${p('createdAt')})`,
  );
  const pruneKeys = statement<'before'>(
    placeholder,
    (p) => `DELETE FROM signing_keys WHERE superseded_at IS NOT NULL AND superseded_at < ${p('before')}`,
  );
  const insertFamily = statement<'family'>(
    placeholder,
    (p) => `INSERT INTO refresh_families (family) VALUES (${p('family')})`,
  );
  const insertToken = statement<'hash' | 'family' | 'collection' | 'accountId' | 'expiresAt'>(
    placeholder,
    (p) =>
      'INSERT INTO refresh_tokens (hash, family, collection, record_id, expires_at, state) VALUES ' +
      `(${p('hash')}, ${p('family')}, ${p('collection')}, ${p('accountId')}, ${p('expiresAt')}, 'live')`,
  );
  const findToken = statement<'hash'>(
    placeholder,
    (p) =>
      `SELECT family, collection, record_id AS "accountId", expires_at AS "expiresAt", state ` +
      `FROM refresh_tokens WHERE hash = ${p('hash')}`,
  );
  const lockFamily = statement<'family'>(
    placeholder,
    (p) => `SELECT revoked FROM refresh_families WHERE family = ${p('family')}${forUpdate}`,
  );
  const useToken = statement<'hash'>(
    placeholder,
    (p) => `UPDATE refresh_tokens SET state = 'used' WHERE hash = ${p('hash')} AND state = 'live'`,
  );
  const revokeFamily = statement<'family'>(
    placeholder,
    (p) => `UPDATE refresh_families SET revoked = 1 WHERE family = ${p('family')}`,
  );
  const sweepTokens = statement<'now'>(
    placeholder,
    (p) => `DELETE FROM refresh_tokens WHERE expires_at <= ${p('now')}`,
  );
  const sweepFamilies = sql(
    'DELETE FROM refresh_families WHERE NOT EXISTS ' +
      '(SELECT 1 FROM refresh_tokens t WHERE t.family = refresh_families.family)',
  );

  function* addKey(key: Omit<SigningKeyRow, 'supersededAt'>, ifNone: boolean): Program<boolean> {
    if (ifNone) {
      if ((yield sql('SELECT 1 FROM signing_keys LIMIT 1')).rows.length > 0) return false;
    } else {
      yield supersede({ now: key.createdAt });
    }
    yield insertKey(key);
    return true;
  }

  /**
   * The token of `hash` if it is `collection`'s, read again once its family's row is
   * locked: what it says then cannot change before the transaction ends.
   */
  function* lockedToken(collection: string, hash: string): Program<TokenRow | undefined> {
    const found = yield* first<TokenRow>(findToken({ hash }));
    if (!found || found.collection !== collection) return undefined;
    const family = yield* first<{ revoked: unknown }>(lockFamily({ family: found.family }));
    if (!family) return undefined;
    const token = yield* first<TokenRow>(findToken({ hash }));
    if (!token) return undefined;
    return Number(family.revoked) === 1 ? { ...token, state: 'revoked' } : token;
  }

  function* rotate(
    collection: string,
    hash: string,
    next: { hash: string; expiresAt: number },
    now: number,
  ): Program<RefreshOutcome> {
    const token = yield* lockedToken(collection, hash);
    if (!token) return { state: 'invalid' };
    if (token.state !== 'live') {
      yield revokeFamily({ family: token.family });
      return { state: 'reused' };
    }
    if (Number(token.expiresAt) <= now) return { state: 'invalid' };
    // The family's lock makes this certain; the condition keeps it so without one.
    if ((yield useToken({ hash })).changes !== 1) return { state: 'invalid' };
    const accountId = Number(token.accountId);
    yield insertToken({ ...next, family: token.family, collection, accountId });
    return { state: 'rotated', accountId };
  }

  function* revokeOf(collection: string, hash: string): Program<boolean> {
    const token = yield* lockedToken(collection, hash);
    if (!token) return false;
    yield revokeFamily({ family: token.family });
    return true;
  }

  return {
    ...sqlFlowTables(driver, dialect, guard),
    async listKeys() {
      const { rows } = await guard(driver.read(listKeys, false));
      return rows.map((row) => ({
        ...(row as unknown as SigningKeyRow),
        createdAt: Number(row.createdAt),
        supersededAt: row.supersededAt === null ? null : Number(row.supersededAt),
      }));
    },
    addKey: (key, options) => guard(driver.transaction(() => addKey(key, options?.ifNone ?? false))),
    async pruneKeys(before) {
      return (await guard(driver.write(pruneKeys({ before })))).changes;
    },
    async addRefreshToken(token) {
      await guard(
        driver.transaction(function* () {
          yield insertFamily(token);
          yield insertToken(token);
        }),
      );
    },
    rotateRefreshToken: (collection, hash, next, now) =>
      guard(driver.transaction(() => rotate(collection, hash, next, now))),
    revokeFamily: (collection, hash) => guard(driver.transaction(() => revokeOf(collection, hash))),
    // Two writes, not one transaction: holding expired tokens while waiting for a family's
    // row would take the locks in the opposite order to a refresh's.
    async sweep(now) {
      const { changes } = await guard(driver.write(sweepTokens({ now })));
      await guard(driver.write(sweepFamilies));
      await guard(driver.write(flows.sweep(now)));
      return changes;
    },
  };
}
