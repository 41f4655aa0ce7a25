/**
 * `restock migrate`: brings the database's schema up to date and exits, for operators who
 * migrate as a deploy step of its own (`restock serve` migrates on start as well).
 */
import { RESOURCES } from '../resources.js';
import { openStore, redact, storeOptionsOf } from '../store/open-store.js';
import type { CommandContext } from './command.js';

export async function runMigrate({ config, io }: CommandContext): Promise<number> {
  const store = await openStore(
    config.databaseUrl,
    RESOURCES.map((r) => r.plural),
    storeOptionsOf(config),
  );
  await store.close();
  io.stdout.write(
    `migrated the ${store.dialect} database at ${redact(config.databaseUrl)}: its schema is up to date\n`,
  );
  return 0;
}
