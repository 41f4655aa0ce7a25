/** SQLite as the SQL core takes it: one `open`, the shape every engine's has (../sql/engine.ts). */
import type { OpenEngine } from '../sql/engine.js';
import { sqliteAdapter, sqliteDialect } from './sqlite-dialect.js';
import { openSqliteDriver } from './sqlite-driver.js';
import { sqliteTables } from './sqlite-tables.js';

/** Opens the database file at `path` (or `:memory:`). */
export const open: OpenEngine = async (path, options) => ({
  driver: openSqliteDriver(path, options),
  dialect: sqliteDialect,
  adapter: sqliteAdapter,
  tables: sqliteTables,
});
