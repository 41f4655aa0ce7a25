/**
 * The migrations every engine runs, each written once over the engine's id type. An engine
 * places them in its own sequence (sqlite-tables.ts, postgres-tables.ts) under the version
 * numbers its databases in the field already record, which differ because each engine had
 * migrations of its own before them.
 */
import { createAccountTables, createFlowTables } from './accounts/index.js';
import { createChangeTables } from './change-log-sql.js';
import type { Migration } from './driver.js';
import { createFileReaperCursors } from './file-upkeep-sql.js';
import { createReferenceTables } from './reference-sql.js';
import { createServerSecrets } from './server-secrets.js';
import { createWebhookTables } from './webhook-tables.js';

export type SharedMigration = Omit<Migration, 'version'>;

/** The name the change log's migration is recorded under (table-sync.ts looks for it). */
export const CHANGE_LOG_MIGRATION = 'change log';

/**
 * The shared migrations in the order every engine applies them; `serialKey` is the column
 * type of a key the engine numbers itself (an AUTOINCREMENT, an identity).
 */
export function sharedMigrations(
  idType: string,
  serialKey: string,
): {
  references: SharedMigration;
  changeLog: SharedMigration;
  accounts: SharedMigration;
  serverSecrets: SharedMigration;
  accountFlows: SharedMigration;
  fileReaper: SharedMigration;
  webhooks: SharedMigration;
} {
  return {
    references: { name: 'record references', up: () => createReferenceTables(idType) },
    changeLog: { name: CHANGE_LOG_MIGRATION, up: () => createChangeTables(idType) },
    accounts: { name: 'accounts', up: () => createAccountTables(idType) },
    serverSecrets: { name: 'server secrets', up: () => createServerSecrets() },
    accountFlows: { name: 'account flows', up: () => createFlowTables(idType) },
    fileReaper: { name: 'file reaper', up: () => createFileReaperCursors(idType) },
    webhooks: { name: 'webhooks', up: () => createWebhookTables(idType, serialKey) },
  };
}
