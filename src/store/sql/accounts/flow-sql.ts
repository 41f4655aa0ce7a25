/**
 * The statements of accounts' flows (./flow-tables.ts), written once: single-use tokens by
 * their hash, verified accounts, and providers' subjects linked to accounts. The programs
 * here run inside a record's write too (`accountEffects`), so a reset's token is spent, a
 * new address proven and a mail queued with the change itself, or not at all.
 */
import type { FlowPurpose, FlowTables, FlowToken, SpentToken } from '../../account-model.js';
import { InvalidFlowTokenError } from '../../store-errors.js';
import type { AccountWrite } from '../../write-model.js';
import type { SqlDialect } from '../dialect.js';
import type { Guard, SqlDriver } from '../driver.js';
import { mailSql } from '../mail-outbox-sql.js';
import { first, type Program, statement } from '../program.js';

const TOKEN_COLUMNS = 'hash, purpose, collection, record_id AS "accountId", detail, expires_at AS "expiresAt"';

/** A token row as the driver gives it: ids and times may come back as text (PostgreSQL's BIGINT). */
function tokenOf(row: Record<string, unknown> | undefined): FlowToken | undefined {
  if (!row) return undefined;
  const { accountId, expiresAt } = row;
  return {
    ...(row as unknown as FlowToken),
    accountId: accountId === null ? null : Number(accountId),
    expiresAt: Number(expiresAt),
  };
}

export function flowSql(dialect: Pick<SqlDialect, 'placeholder'>) {
  const p$ = <K extends string>(build: (p: (name: K) => string) => string) => statement<K>(dialect.placeholder, build);
  const live = (p: (name: 'purpose' | 'collection' | 'hash' | 'now') => string) =>
    `hash = ${p('hash')} AND purpose = ${p('purpose')} AND collection = ${p('collection')} AND expires_at > ${p('now')}`;
  const insertToken = p$<'hash' | 'purpose' | 'collection' | 'accountId' | 'detail' | 'expiresAt'>(
    (p) =>
      'INSERT INTO account_tokens (hash, purpose, collection, record_id, detail, expires_at) VALUES ' +
      `(${p('hash')}, ${p('purpose')}, ${p('collection')}, ${p('accountId')}, ${p('detail')}, ${p('expiresAt')})`,
  );
  const supersede = p$<'purpose' | 'collection' | 'accountId'>(
    (p) =>
      `DELETE FROM account_tokens WHERE collection = ${p('collection')} AND record_id = ${p('accountId')} ` +
      `AND purpose = ${p('purpose')}`,
  );
  const findToken = p$<'purpose' | 'collection' | 'hash' | 'now'>(
    (p) => `SELECT ${TOKEN_COLUMNS} FROM account_tokens WHERE ${live(p)}`,
  );
  const spendToken = p$<'purpose' | 'collection' | 'hash' | 'now'>(
    (p) => `DELETE FROM account_tokens WHERE ${live(p)} RETURNING ${TOKEN_COLUMNS}`,
  );
  const spendFor = p$<'purpose' | 'collection' | 'hash' | 'now' | 'accountId'>(
    (p) => `DELETE FROM account_tokens WHERE ${live(p)} AND record_id = ${p('accountId')}`,
  );
  const sweep = p$<'now'>((p) => `DELETE FROM account_tokens WHERE expires_at <= ${p('now')}`);
  const isVerified = p$<'collection' | 'accountId'>(
    (p) =>
      `SELECT 1 AS yes FROM verified_accounts WHERE collection = ${p('collection')} AND record_id = ${p('accountId')}`,
  );
  const verify = p$<'collection' | 'accountId'>(
    (p) =>
      `INSERT INTO verified_accounts (collection, record_id) VALUES (${p('collection')}, ${p('accountId')}) ` +
      'ON CONFLICT DO NOTHING',
  );
  const unverify = p$<'collection' | 'accountId'>(
    (p) => `DELETE FROM verified_accounts WHERE collection = ${p('collection')} AND record_id = ${p('accountId')}`,
  );
  const forgetAccount = [
    p$<'collection' | 'accountId'>(
      (p) => `DELETE FROM account_tokens WHERE collection = ${p('collection')} AND record_id = ${p('accountId')}`,
    ),
    unverify,
    p$<'collection' | 'accountId'>(
      (p) => `DELETE FROM account_links WHERE collection = ${p('collection')} AND record_id = ${p('accountId')}`,
    ),
  ];
  const findLink = p$<'collection' | 'provider' | 'subject'>(
    (p) =>
      `SELECT record_id AS "accountId" FROM account_links WHERE collection = ${p('collection')} ` +
      `AND provider = ${p('provider')} AND subject = ${p('subject')}`,
  );
  const addLink = p$<'collection' | 'provider' | 'subject' | 'accountId'>(
    (p) =>
      'INSERT INTO account_links (collection, provider, subject, record_id) VALUES ' +
      `(${p('collection')}, ${p('provider')}, ${p('subject')}, ${p('accountId')}) ON CONFLICT DO NOTHING`,
  );
  const mail = mailSql(dialect);

  return {
    *addToken(token: FlowToken): Program<void> {
      if (token.accountId !== null) yield supersede(token);
      yield insertToken(token);
    },
    findToken: (purpose: FlowPurpose, collection: string, hash: string, now: number) =>
      findToken({ purpose, collection, hash, now }),
    *spendToken(purpose: FlowPurpose, collection: string, hash: string, now: number) {
      return tokenOf(yield* first<Record<string, unknown>>(spendToken({ purpose, collection, hash, now })));
    },
    sweep: (now: number) => sweep({ now }),
    isVerified: (collection: string, accountId: number) => isVerified({ collection, accountId }),
    *setVerified(collection: string, accountId: number, verified: boolean): Program<void> {
      yield (verified ? verify : unverify)({ collection, accountId });
    },
    findLink: (collection: string, provider: string, subject: string) => findLink({ collection, provider, subject }),
    addLink,
    /**
     * What an account's write carries beside its record, in its transaction: the token it
     * spends (first: a token that is not live changes nothing), its verified state, its mail.
     */
    *accountEffects(
      collection: string,
      accountId: number,
      effects: Omit<AccountWrite, 'secret'> & { readonly spend?: SpentToken },
    ): Program<void> {
      const { spend, verified, mail: mails } = effects;
      if (spend) {
        const { changes } = yield spendFor({ ...spend, collection, accountId });
        if (changes !== 1) throw new InvalidFlowTokenError();
      }
      if (verified !== undefined) yield* this.setVerified(collection, accountId, verified);
      for (const one of mails ?? []) yield* mail.add({ accountId, ...one }, Date.now());
    },
    /** Forgets a deleted account's tokens, verified state and links, in its delete's transaction. */
    *forget(collection: string, accountId: number): Program<void> {
      for (const remove of forgetAccount) yield remove({ collection, accountId });
    },
  };
}

/** The store's {@link FlowTables} over the statements above. */
export function sqlFlowTables(driver: SqlDriver, dialect: Pick<SqlDialect, 'placeholder'>, guard: Guard): FlowTables {
  const flows = flowSql(dialect);
  return {
    addFlowToken: async (token) => {
      await guard(driver.transaction(() => flows.addToken(token)));
    },
    async findFlowToken(purpose, collection, hash, now) {
      return tokenOf((await guard(driver.read(flows.findToken(purpose, collection, hash, now), false))).rows[0]);
    },
    spendFlowToken: (purpose, collection, hash, now) =>
      guard(driver.transaction(() => flows.spendToken(purpose, collection, hash, now))),
    async isVerified(collection, accountId) {
      return (await guard(driver.read(flows.isVerified(collection, accountId), false))).rows.length > 0;
    },
    setVerified: (collection, accountId, verified) =>
      guard(driver.transaction(() => flows.setVerified(collection, accountId, verified))),
    async findLink(collection, provider, subject) {
      const { rows } = await guard(driver.read(flows.findLink(collection, provider, subject), false));
      return rows[0] === undefined ? undefined : Number(rows[0].accountId);
    },
    async addLink(link) {
      await guard(driver.write(flows.addLink(link)));
    },
  };
}
