import { CONFIG_DEFAULTS, type Config, ConfigError } from '../config/index.js';
import type { Catalog } from '../core/catalog.js';
import { openSqlStore } from './sql/sql-store.js';
import type { Store, StoreOptions } from './store.js';
import { refuseStoreTables } from './store-tables.js';

/** What a store uses when the caller does not say: the settings' defaults. */
export const DEFAULT_STORE_OPTIONS: StoreOptions = storeOptionsOf(CONFIG_DEFAULTS);

/**
 * The store options the settings ask for; unless `enforceUnique` is false (for `check`,
 * which lists shared values), the catalog's unique fields get their unique indexes.
 */
export function storeOptionsOf(config: Config, { enforceUnique = true } = {}): StoreOptions {
  return {
    enforceUnique,
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeout,
    statementTimeoutMs: config.databaseStatementTimeout,
    lockTimeoutMs: config.databaseLockTimeout,
    searchIndex: config.searchIndex,
    maxIndexedValueBytes: config.maxIndexedValueBytes,
  };
}

/**
 * Opens the store a `DATABASE_URL` names and brings it in line with `catalog`: `sqlite:PATH`,
 * `sqlite:///absolute/path`, `sqlite::memory:`, or `postgres://…` (also `postgresql://`).
 * A collection whose table would be one of the store's own is refused first, naming its file.
 */
export async function openStore(
  url: string,
  catalog: Catalog,
  options: StoreOptions = DEFAULT_STORE_OPTIONS,
): Promise<Store> {
  refuseStoreTables(catalog);
  // Each engine is loaded only when a URL names it: a process needs one of them.
  const path = sqlitePathOf(url);
  if (path !== undefined) {
    const sqlite = await import('./sqlite/index.js');
    return openSqlStore(await sqlite.open(path, options), catalog, options);
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const postgres = await import('./postgres/index.js');
    return openSqlStore(await postgres.open(url, options), catalog, options);
  }
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got "${redact(url)}"`);
}

/** The file (or `:memory:`) a `sqlite:` URL names; undefined for any other URL. */
export function sqlitePathOf(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  let path = url.slice('sqlite:'.length);
  if (path.startsWith('//')) path = path.slice(2);
  if (path === '') throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/restock.db');
  return path;
}

/** The URL with any password replaced, so that it can be printed. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}
