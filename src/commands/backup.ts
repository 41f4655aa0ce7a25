/**
 * `restock backup FILE`: an online, consistent copy of the SQLite database, taken while the
 * server runs (src/store/sqlite/backup.ts says how). PostgreSQL has its own tools for this,
 * which the command names instead.
 *
 * Where collections have file fields, the files the copy names go beside it, in FILE.files
 * (./backup-files.ts).
 *
 * FILE must be new, in a folder that exists: like `cp` or `pg_dump -f`, backup makes no
 * folders, so a mistyped path is an error rather than a copy made where no one looks.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../config/index.js';
import { redact, sqlitePathOf } from '../store/open-store.js';
import { backupSqlite } from '../store/sqlite/backup.js';
import { copyBackupFiles, filesFolderOfBackup } from './backup-files.js';
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
  if (!existsSync(source)) throw new ConfigError(`there is no database at ${source} to back up (DATABASE_URL)`);
  if (existsSync(file)) throw new ConfigError(`${file} exists; backup writes a new file and overwrites none`);
  const filesInto = filesFolderOfBackup(file);
  if (existsSync(filesInto)) throw new ConfigError(`${filesInto} exists; backup copies files into a new folder`);
  refuseMissingFolder(file);
  const started = Date.now();
  let bytes: number;
  let files: string | undefined;
  try {
    ({ bytes } = backupSqlite(source, file));
    files = await copyBackupFiles(config, file);
  } catch (error) {
    // Neither existed before: whatever part of a copy was written is removed.
    rmSync(file, { force: true });
    rmSync(filesInto, { recursive: true, force: true });
    io.stderr.write(`restock: could not write ${file}: ${(error as Error).message}; nothing was written\n`);
    return 1;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.stdout.write(`backed up ${redact(config.databaseUrl)} to ${file} (${bytes} bytes) in ${seconds} s\n`);
  if (files) io.stdout.write(`${files}\n`);
  return 0;
}

function refuseMissingFolder(file: string): void {
  const folder = dirname(file);
  let isFolder: boolean;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    throw new ConfigError(`the folder ${folder} does not exist; create it first (backup makes no folders)`);
  }
  if (!isFolder) throw new ConfigError(`cannot write ${file}: ${folder} is not a folder`);
}
