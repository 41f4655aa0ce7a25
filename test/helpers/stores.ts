/**
 * The databases every storage and contract suite runs against. Each entry makes a fresh,
 * empty database and knows how to throw it away.
 *
 * PostgreSQL is the server at `TEST_POSTGRES_URL` (default 127.0.0.1:5432, user postgres).
 * When it does not answer, the PostgreSQL suites are left out with a loud warning, unless
 * `RESTOCK_REQUIRE_POSTGRES=1` (as CI sets it), which turns that into a failure.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  /**
   * A new database holding what this one holds, for a suite that fills one database once
   * and gives each test its own copy. Nothing may have this one open meanwhile.
   */
  copy(): Promise<TestDatabase>;
  drop(): Promise<void>;
}

export interface TestStoreKind {
  name: 'sqlite' | 'postgres';
  create(): Promise<TestDatabase>;
}

/** A SQLite database file in a folder of its own, made from `source`'s files when given. */
function sqliteDatabase(source?: string): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'restock-test-'));
  const file = join(dir, 'restock.db');
  for (const suffix of ['', '-wal']) {
    if (source && existsSync(source + suffix)) copyFileSync(source + suffix, file + suffix);
  }
  return {
    url: `sqlite:${file}`,
    async copy() {
      return sqliteDatabase(file);
    },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const sqliteKind: TestStoreKind = {
  name: 'sqlite',
  async create() {
    return sqliteDatabase();
  },
};

/** The PostgreSQL server tests create their databases on (through its `postgres` database). */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs one statement as the administrator, on a connection of its own. */
export async function postgresAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the test server. */
export function postgresUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.href;
}

/** A new PostgreSQL database, a copy of `template` when given (CREATE DATABASE copies its files). */
async function postgresDatabase(template?: string): Promise<TestDatabase> {
  const name = `restock_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await postgresAdmin(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  return {
    url: postgresUrl(name),
    copy: () => postgresDatabase(name),
    async drop() {
      await postgresAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

export const postgresKind: TestStoreKind = {
  name: 'postgres',
  create: () => postgresDatabase(),
};

async function postgresAnswers(): Promise<boolean> {
  try {
    await postgresAdmin('SELECT 1');
    return true;
  } catch (error) {
    if (process.env.RESTOCK_REQUIRE_POSTGRES === '1') {
      throw new Error(`PostgreSQL is required (RESTOCK_REQUIRE_POSTGRES=1) but does not answer: ${error}`);
    }
    process.stderr.write(
      `\n${'!'.repeat(78)}\n!! PostgreSQL at ${POSTGRES_ADMIN_URL} does not answer (${(error as Error).message}).\n` +
        `!! SKIPPING every PostgreSQL suite. Start PostgreSQL, or set TEST_POSTGRES_URL.\n${'!'.repeat(78)}\n\n`,
    );
    return false;
  }
}

/** Whether the PostgreSQL suites run in this process. */
export const POSTGRES_AVAILABLE = await postgresAnswers();

/** The stores a contract suite is run against, one `describe` each. */
export const STORE_KINDS: readonly TestStoreKind[] = POSTGRES_AVAILABLE ? [sqliteKind, postgresKind] : [sqliteKind];
