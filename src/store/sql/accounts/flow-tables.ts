/**
 * The tables of accounts' flows (verification, password reset, email change, sign-in with a
 * provider) and of the mail they send, in a database's id type. Times are milliseconds
 * since the epoch on the caller's clock, as in ./account-tables.ts.
 */
import { type Program, sql } from '../program.js';

/** The DDL of the "account flows" shared migration (../shared-migrations.ts). */
export function* createFlowTables(idType: string): Program<void> {
  // Every single-use token of a flow, by its SHA-256: the database never holds one that
  // could be used. A reset's, a verification's and an email change's name their account;
  // a provider sign-in's state names none until the provider has answered.
  yield sql(`CREATE TABLE account_tokens (
    hash       TEXT PRIMARY KEY,
    purpose    TEXT NOT NULL,
    collection TEXT NOT NULL,
    record_id  ${idType},
    detail     TEXT,
    expires_at ${idType} NOT NULL
  )`);
  // A newer token of a purpose supersedes the account's older ones: found through this.
  yield sql('CREATE INDEX account_tokens_by_account ON account_tokens (collection, record_id, purpose)');
  yield sql('CREATE INDEX account_tokens_by_expiry ON account_tokens (expires_at)');
  // A row is an account whose email address is proven (`auth.verified`).
  yield sql(`CREATE TABLE verified_accounts (
    collection TEXT NOT NULL,
    record_id  ${idType} NOT NULL,
    PRIMARY KEY (collection, record_id)
  )`);
  // An outside provider's subject (`sub`) signed in as an account: the link, not the
  // email address, finds the account at the next sign-in.
  yield sql(`CREATE TABLE account_links (
    collection TEXT NOT NULL,
    provider   TEXT NOT NULL,
    subject    TEXT NOT NULL,
    record_id  ${idType} NOT NULL,
    PRIMARY KEY (collection, provider, subject)
  )`);
  yield sql('CREATE INDEX account_links_by_account ON account_links (collection, record_id)');
  // Mail to send, written in the transaction of the write that causes it, so that a mail
  // is never lost for a write that committed nor sent for one that did not. It holds no
  // token: the sender makes the token when it sends (src/records/mail/). `due_at` is when
  // it may next be tried; a sender claiming it moves it past its lease.
  yield sql(`CREATE TABLE mail_outbox (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    collection TEXT NOT NULL,
    record_id  ${idType},
    address    TEXT,
    attempts   INTEGER NOT NULL DEFAULT 0,
    due_at     ${idType} NOT NULL,
    created_at ${idType} NOT NULL
  )`);
  yield sql('CREATE INDEX mail_outbox_by_due ON mail_outbox (due_at)');
}
