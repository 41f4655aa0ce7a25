/**
 * `restock migrate`: brings the database's schema up to date and exits, for operators who
 * migrate as a deploy step of its own (`restock serve` migrates on start as well).
 */
import { RESOURCES } from '../resources.js';
import { openStore } from '../store/open-store.js';
import type { CommandContext } from './command.js';

export async function runMigrate({ config, io }: CommandContext): Promise<number> {
  const store = await openStore(
    config.databaseUrl,
    RESOURCES.map((r) => r.plural),
  );
  await store.close();
  io.stdout.write(
    `migrated the ${store.dialect} database at ${redact(config.databaseUrl)}: its schema is up to date\n`,
  );
  return 0;
}

/** The database URL without its password, fit for a terminal or a log. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
