/**
 * Secrets the server keeps in the database, by name, so that every instance on one database
 * holds the same: made at random by the first instance that needs one, read by the rest.
 * The key of the Idempotency-Keys' fingerprints is one (src/records/idempotency.ts).
 */
import { randomBytes } from 'node:crypto';
import type { SqlDialect } from './dialect.js';
import type { Guard, SqlDriver } from './driver.js';
import { first, type Program, sql, statement } from './program.js';

/** The DDL of the "server secrets" shared migration (./shared-migrations.ts). */
export function* createServerSecrets(): Program<void> {
  yield sql('CREATE TABLE server_secrets (name TEXT PRIMARY KEY, secret TEXT NOT NULL)');
}

/**
 * The secret named `name`: 32 random bytes, made once per database. Two instances making it
 * at once insert one row between them (the other's insert does nothing) and read that.
 * Kept in memory once read; a failed read is tried again at the next call.
 */
export function serverSecret(
  { driver, dialect }: { driver: SqlDriver; dialect: Pick<SqlDialect, 'placeholder'> },
  guard: Guard,
  name: string,
): () => Promise<Buffer> {
  const insert = statement<'name' | 'secret'>(
    dialect.placeholder,
    (p) => `INSERT INTO server_secrets (name, secret) VALUES (${p('name')}, ${p('secret')}) ON CONFLICT DO NOTHING`,
  );
  const select = statement<'name'>(
    dialect.placeholder,
    (p) => `SELECT secret FROM server_secrets WHERE name = ${p('name')}`,
  );
  function* made(): Program<Buffer> {
    yield insert({ name, secret: randomBytes(32).toString('base64') });
    const row = yield* first<{ secret: string }>(select({ name }));
    if (!row) throw new Error(`the server secret ${name} is missing after it was made`);
    return Buffer.from(row.secret, 'base64');
  }
  let secret: Promise<Buffer> | undefined;
  return () => {
    secret ??= guard(driver.transaction(made)).catch((error: unknown) => {
      secret = undefined;
      throw error;
    });
    return secret;
  };
}
