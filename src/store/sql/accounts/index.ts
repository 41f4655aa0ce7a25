/**
 * The SQL of accounts, the one entry the rest of the SQL core imports: the tables beside an
 * account collection (password hashes, signing keys, refresh tokens; account-tables.ts), the
 * store's `AccountTables` over them (account-sql.ts), and the statements that keep a record's
 * password hash with its writes (secret-sql.ts); the tables of accounts' flows (flow-tables.ts)
 * and their statements, which a record's write runs too (flow-sql.ts).
 */
export { sqlAccountTables } from './account-sql.js';
export { createAccountTables } from './account-tables.js';
export { flowSql, sqlFlowTables } from './flow-sql.js';
export { createFlowTables } from './flow-tables.js';
export { secretSql } from './secret-sql.js';
