/**
 * `restock migrate`: brings the database's schema up to date and exits, for operators who
 * migrate as a deploy step of its own (`restock serve` migrates on start as well). It says
 * what it did: created the database, applied some migrations, made the tables of new
 * collections, or nothing at all.
 */

import { loadCatalog } from '../core/load-catalog.js';
import { openStore, redact, storeOptionsOf } from '../store/open-store.js';
import type { TableSync } from '../store/store.js';
import type { CommandContext } from './command.js';

export async function runMigrate({ config, io }: CommandContext): Promise<number> {
  // The unique fields' indexes too: a migrated database is one `serve` starts on at once.
  const store = await openStore(config.databaseUrl, loadCatalog(config), storeOptionsOf(config));
  await store.close();
  io.stdout.write(
    `${migrationReport(store.synced, `the ${store.dialect} database at ${redact(config.databaseUrl)}`)}\n`,
  );
  return 0;
}

/** The line `restock migrate` prints of `database` after `synced`. */
export function migrationReport({ before, applied, added }: TableSync, database: string): string {
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const now = Math.max(0, ...before, ...applied);
  const tables = added?.length ? `; made the tables of ${added.join(', ')}` : '';
  if (before.length === 0) {
    const collections = added ?? [];
    return `created ${database}: ${count(applied.length, 'migration')} applied, ${count(collections.length, 'collection')} (${collections.join(', ')})`;
  }
  if (applied.length > 0) {
    return `migrated ${database} from migration ${Math.max(...before)} to ${now} (${count(applied.length, 'migration')} applied)${tables}`;
  }
  return `${database} was already up to date (migration ${now})${tables}`;
}
