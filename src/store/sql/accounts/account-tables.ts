/**
 * The tables of accounts, in a database's id type: their password hashes, the keys that
 * sign access tokens, and refresh tokens. Every time is milliseconds since the epoch on the
 * token service's clock (src/records/accounts/), in the id type, 64 bits on every engine: one
 * clock, the one the tests can move, decides what has expired.
 */
import { type Program, sql } from '../program.js';

/** The DDL of the "accounts" shared migration (../shared-migrations.ts). */
export function* createAccountTables(idType: string): Program<void> {
  yield sql(`CREATE TABLE account_secrets (
    collection TEXT NOT NULL,
    record_id  ${idType} NOT NULL,
    hash       TEXT NOT NULL,
    PRIMARY KEY (collection, record_id)
  )`);
  // Every instance verifies with every key here and signs with the newest, so instances on
  // one database accept each other's tokens. A key superseded by a newer one stays until the
  // tokens it signed have expired (`restock rotate-keys` removes it after that).
  yield sql(`CREATE TABLE signing_keys (
    kid           TEXT PRIMARY KEY,
    private_jwk   TEXT NOT NULL,
    public_jwk    TEXT NOT NULL,
    created_at    ${idType} NOT NULL,
    superseded_at ${idType}
  )`);
  // One row per family of refresh tokens (one sign-in), which holds whether it is revoked:
  // the row a refresh and a revocation both lock first, so that a revocation can never miss
  // a token a refresh is adding.
  yield sql(`CREATE TABLE refresh_families (
    family  TEXT PRIMARY KEY,
    revoked INTEGER NOT NULL DEFAULT 0
  )`);
  // Keyed by the token's SHA-256: the database never holds a token that could be replayed.
  // A token is live until a refresh uses it; revoked is its family's state.
  yield sql(`CREATE TABLE refresh_tokens (
    hash       TEXT PRIMARY KEY,
    family     TEXT NOT NULL,
    collection TEXT NOT NULL,
    record_id  ${idType} NOT NULL,
    expires_at ${idType} NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('live', 'used'))
  )`);
  yield sql('CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family)');
  yield sql('CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at)');
  // A new password revokes the account's families: found through this, not by a scan.
  yield sql('CREATE INDEX refresh_tokens_by_account ON refresh_tokens (collection, record_id)');
}
