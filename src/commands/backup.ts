/**
 * `restock backup FILE`: an online, consistent copy of the SQLite database, taken while the
 * server runs (src/store/sqlite/backup.ts says how). PostgreSQL has its own tools for this,
 * which the command names instead.
 */
import { existsSync } from 'node:fs';
import { ConfigError } from '../config/index.js';
import { redact, sqlitePathOf } from '../store/open-store.js';
import { backupSqlite } from '../store/sqlite/backup.js';
import type { CommandContext } from './command.js';

export async function runBackup({ config, positionals, io }: CommandContext): Promise<number> {
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new ConfigError('backup takes one FILE: the copy to write');
  const source = sqlitePathOf(config.databaseUrl);
  if (source === undefined) {
    io.stderr.write(
      'restock: backup copies a SQLite database. For PostgreSQL use its own tools: pg_dump for a ' +
        'consistent copy while restock serves (pg_restore brings it back), or pg_basebackup with WAL ' +
        'archiving for point-in-time recovery.\n',
    );
    return 1;
  }
  if (source === ':memory:') throw new ConfigError('backup needs a database file, not sqlite::memory:');
  if (existsSync(file)) throw new ConfigError(`${file} exists; backup writes a new file and overwrites none`);
  const started = Date.now();
  const { bytes } = backupSqlite(source, file);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.stdout.write(`backed up ${redact(config.databaseUrl)} to ${file} (${bytes} bytes) in ${seconds} s\n`);
  return 0;
}
