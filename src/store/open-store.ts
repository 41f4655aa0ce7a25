import { ConfigError } from '../config.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * Opens the store a `DATABASE_URL` names and migrates it:
 * `sqlite:PATH`, `sqlite:///absolute/path` or `sqlite::memory:`.
 */
export async function openStore(url: string, collections: readonly string[]): Promise<Store> {
  if (url.startsWith('sqlite:')) {
    let path = url.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2);
    if (path === '') throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/restock.db');
    return openSqliteStore(path, collections);
  }
  throw new ConfigError(`DATABASE_URL must start with sqlite:, got "${url}"`);
}
