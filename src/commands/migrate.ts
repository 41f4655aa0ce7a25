/**
 * `restock migrate`: brings the database's schema up to date and exits, for operators who
 * migrate as a deploy step of its own (`restock serve` migrates on start as well).
 */

import { declareCollections } from '../core/collections.js';
import { openStore, redact, storeOptionsOf } from '../store/open-store.js';
import type { CommandContext } from './command.js';

export async function runMigrate({ config, io }: CommandContext): Promise<number> {
  const declared = declareCollections(config);
  const collections = declared.resources.map((r) => r.plural);
  // The unique fields' indexes too: a migrated database is one `serve` starts on at once.
  const store = await openStore(config.databaseUrl, collections, storeOptionsOf(config, declared));
  await store.close();
  io.stdout.write(
    `migrated the ${store.dialect} database at ${redact(config.databaseUrl)}: its schema is up to date\n`,
  );
  return 0;
}
