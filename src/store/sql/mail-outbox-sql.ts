/**
 * The mail outbox (../mail-model.ts) on any SQL database, written once. Senders on many
 * instances claim mails by moving `due_at` past a lease in one statement; on PostgreSQL the
 * rows being claimed are skipped by others (SKIP LOCKED), so two senders never wait for each
 * other and never claim one mail together.
 */
import { randomUUID } from 'node:crypto';
import type { MailOutbox, NewMail, OutboxMail } from '../mail-model.js';
import type { SqlDialect } from './dialect.js';
import type { Guard, SqlDriver } from './driver.js';
import { type Program, sql, statement } from './program.js';

const COLUMNS = 'id, kind, collection, record_id AS "accountId", address, attempts, created_at AS "createdAt"';

function mailOf(row: Record<string, unknown>): OutboxMail {
  const { accountId, attempts, createdAt } = row;
  return {
    ...(row as unknown as OutboxMail),
    accountId: accountId === null ? null : Number(accountId),
    attempts: Number(attempts),
    createdAt: Number(createdAt),
  };
}

export function mailSql(dialect: Pick<SqlDialect, 'placeholder'>) {
  const insert = statement<'id' | 'kind' | 'collection' | 'accountId' | 'address' | 'now'>(
    dialect.placeholder,
    (p) =>
      'INSERT INTO mail_outbox (id, kind, collection, record_id, address, due_at, created_at) VALUES ' +
      `(${p('id')}, ${p('kind')}, ${p('collection')}, ${p('accountId')}, ${p('address')}, ${p('now')}, ${p('now')})`,
  );
  return {
    /** Puts a mail in the outbox, due now; within a write's transaction or on its own. */
    *add(mail: NewMail, now: number): Program<void> {
      const { kind, collection } = mail;
      yield insert({
        id: randomUUID(),
        kind,
        collection,
        accountId: mail.accountId ?? null,
        address: mail.address ?? null,
        now,
      });
    },
  };
}

export function sqlMailOutbox(driver: SqlDriver, dialect: SqlDialect, guard: Guard): MailOutbox {
  const mail = mailSql(dialect);
  const claim = statement<'now' | 'until' | 'limit'>(
    dialect.placeholder,
    (p) =>
      `UPDATE mail_outbox SET due_at = ${p('until')}, attempts = attempts + 1 WHERE id IN ` +
      `(SELECT id FROM mail_outbox WHERE due_at <= ${p('now')} ORDER BY due_at, created_at LIMIT ${p('limit')}` +
      `${dialect.skipLocked}) RETURNING ${COLUMNS}`,
  );
  const finish = statement<'id'>(dialect.placeholder, (p) => `DELETE FROM mail_outbox WHERE id = ${p('id')}`);
  const retry = statement<'id' | 'dueAt'>(
    dialect.placeholder,
    (p) => `UPDATE mail_outbox SET due_at = ${p('dueAt')} WHERE id = ${p('id')}`,
  );
  const pending = sql('SELECT COUNT(*) AS n FROM mail_outbox');
  return {
    enqueue: (one, now) => guard(driver.transaction(() => mail.add(one, now))),
    async claim(now, leaseMs, limit) {
      const { rows } = await guard(driver.write(claim({ now, until: now + leaseMs, limit })));
      return rows.map(mailOf).sort((a, b) => a.createdAt - b.createdAt);
    },
    async finish(id) {
      await guard(driver.write(finish({ id })));
    },
    async retry(id, dueAt) {
      await guard(driver.write(retry({ id, dueAt })));
    },
    async pending() {
      const { rows } = await guard(driver.read(pending, false));
      return Number(rows[0]?.n ?? 0);
    },
  };
}
