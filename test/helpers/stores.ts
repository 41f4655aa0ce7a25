/**
 * The databases every storage and contract suite runs against. Each entry makes a fresh,
 * empty database and knows how to throw it away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface TestStoreKind {
  name: string;
  create(): Promise<TestDatabase>;
}

export const sqliteKind: TestStoreKind = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'restock-test-'));
    return {
      url: `sqlite:${join(dir, 'restock.db')}`,
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** The stores a contract suite is run against, one `describe` each. */
export const STORE_KINDS: readonly TestStoreKind[] = [sqliteKind];
