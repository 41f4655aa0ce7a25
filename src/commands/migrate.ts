/**
 * `restock migrate`: brings the database's schema up to date and exits, for operators who
 * migrate as a deploy step of its own (`restock serve` migrates on start as well).
 */

import { loadCatalog } from '../core/load-catalog.js';
import { openStore, redact, storeOptionsOf } from '../store/open-store.js';
import type { CommandContext } from './command.js';

export async function runMigrate({ config, io }: CommandContext): Promise<number> {
  // The unique fields' indexes too: a migrated database is one `serve` starts on at once.
  const store = await openStore(config.databaseUrl, loadCatalog(config), storeOptionsOf(config));
  await store.close();
  io.stdout.write(
    `migrated the ${store.dialect} database at ${redact(config.databaseUrl)}: its schema is up to date\n`,
  );
  return 0;
}
