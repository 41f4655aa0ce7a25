import { CONFIG_DEFAULTS, type Config, ConfigError } from '../config/index.js';
import type { DeclaredCollections } from '../core/collections.js';
import { openSqlStore } from './sql/sql-store.js';
import type { Store, StoreOptions } from './store.js';
import { refuseStoreTables } from './store-tables.js';

/** What a store uses when the caller does not say: the settings' defaults, no indexes. */
export const DEFAULT_STORE_OPTIONS: StoreOptions = storeOptionsOf(CONFIG_DEFAULTS, {
  schemas: new Map(),
  indexes: [],
});

/**
 * The store options the settings ask for, with the declared collections' indexes and, unless
 * `enforceUnique` is false (for `check`, which lists shared values), their unique fields.
 * A collection whose table would be one of the store's own is refused here, naming its file.
 */
export function storeOptionsOf(
  config: Config,
  declared: Pick<DeclaredCollections, 'schemas' | 'indexes'> & Partial<Pick<DeclaredCollections, 'references'>>,
  { enforceUnique = true } = {},
): StoreOptions {
  refuseStoreTables(declared.schemas);
  return {
    indexes: declared.indexes,
    references: declared.references ?? [],
    unique: enforceUnique ? [...declared.schemas.values()].flatMap((schema) => schema.unique) : [],
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeout,
    statementTimeoutMs: config.databaseStatementTimeout,
    lockTimeoutMs: config.databaseLockTimeout,
    searchIndex: config.searchIndex,
    maxIndexedValueBytes: config.maxIndexedValueBytes,
  };
}

/**
 * Opens the store a `DATABASE_URL` names and migrates it: `sqlite:PATH`,
 * `sqlite:///absolute/path`, `sqlite::memory:`, or `postgres://…` (also `postgresql://`).
 */
export async function openStore(
  url: string,
  collections: readonly string[],
  options: StoreOptions = DEFAULT_STORE_OPTIONS,
): Promise<Store> {
  // Each engine is loaded only when a URL names it: a process needs one of them.
  const path = sqlitePathOf(url);
  if (path !== undefined) {
    const [{ openSqliteDriver }, { sqliteSchema }] = await Promise.all([
      import('./sqlite/sqlite-driver.js'),
      import('./sqlite/sqlite-schema.js'),
    ]);
    return openSqlStore(openSqliteDriver(path, options), sqliteSchema, collections, options);
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { openPostgres } = await import('./postgres/postgres-driver.js');
    const { driver, schema } = await openPostgres(url, options);
    return openSqlStore(driver, schema, collections, options);
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
