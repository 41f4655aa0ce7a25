/**
 * The real app sending mail to a real SMTP server (./smtp.ts), on a fresh database of a
 * store kind: the SMTP server starts first, so that the app is built with its address, and
 * the app listens, which starts its mail drain (requests may still be injected).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Config, defaultConfig } from '../../src/config/index.js';
import { buildApp } from '../../src/http/app.js';
import { startSmtp, type TestSmtp } from './smtp.js';
import type { TestDatabase, TestStoreKind } from './stores.js';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface MailContext {
  app: FastifyInstance;
  db: TestDatabase;
  smtp: TestSmtp;
}

/** Builds the app before the suite, `SMTP_URL` naming a test SMTP server; tears all down after. */
export function useMailApp(kind: TestStoreKind, overrides: Partial<Config> = {}): MailContext {
  const context = {} as MailContext;
  before(async () => {
    context.smtp = await startSmtp();
    context.db = await kind.create();
    context.app = await buildApp({
      config: defaultConfig({
        maxEventLoopDelay: 0,
        ...overrides,
        smtpUrl: context.smtp.url,
        databaseUrl: context.db.url,
      }),
      logStream: false,
    });
    // The mail drain starts once the server listens.
    await context.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await context.app?.close();
    await context.smtp?.close();
    await context.db?.drop();
  });
  return context;
}

/**
 * A copy of the example shop's schemas whose users verify their email (`"verify": "email"`):
 * an email change there waits for its confirmation. Removed after the suite.
 */
export function verifyingShop(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-verify-shop-'));
  cpSync(join(ROOT, 'schemas/shop'), dir, { recursive: true });
  const users = join(dir, 'users.schema.json');
  const schema = JSON.parse(readFileSync(users, 'utf8')) as { 'x-auth': Record<string, unknown> };
  schema['x-auth'] = { ...schema['x-auth'], verify: 'email' };
  writeFileSync(users, JSON.stringify(schema));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
