/** PostgreSQL as the SQL core takes it: one `open`, the shape every engine's has (../sql/engine.ts). */
import type { OpenEngine } from '../sql/engine.js';
import { foldSqlFor, postgresAdapter, postgresDialectFor } from './postgres-dialect.js';
import { openPostgresDriver } from './postgres-driver.js';
import { postgresTables } from './postgres-tables.js';

/** Connects to the database at `url`; its dialect and DDL follow the collations the server has. */
export const open: OpenEngine = async (url, options) => {
  const { driver, icu } = await openPostgresDriver(url, options);
  const warn = (message: string) => process.emitWarning(message, { code: 'RESTOCK_SEARCH_UNINDEXED' });
  return {
    driver,
    dialect: postgresDialectFor(icu),
    adapter: postgresAdapter,
    tables: postgresTables(foldSqlFor(icu), warn),
  };
};
