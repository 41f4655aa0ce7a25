/**
 * The indexes restock keeps by default (the INDEXES setting), which the seeded databases
 * and the baseline share, so that a write updates the same indexes in both servers.
 */
import { defaultConfig } from '../src/config/index.js';
import { createIndexStatements } from '../src/store/sql/list-sql.js';
import { sqliteDialect } from '../src/store/sqlite/sqlite-dialect.js';

export const INDEXES = defaultConfig().indexes;

export function indexStatements(): string[] {
  return createIndexStatements(sqliteDialect, INDEXES);
}
