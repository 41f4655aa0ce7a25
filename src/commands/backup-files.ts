/**
 * The files a SQLite backup names, copied beside it: `restock backup FILE` writes the
 * database's copy, then copies every file its records name from the files folder into
 * `FILE.files/<collection>/<name>` (thumbnails are left out: they are made again on
 * request). The database's copy is one moment's state; the files are copied after it, so a
 * file whose record changed meanwhile may be gone already (the reaper removed it): it is
 * counted, and the backup then names a file it lacks, as the server would have a moment
 * later. On S3 (`FILES_URL`) the files stay where they are, and the line printed says to
 * copy the prefix with S3's own tools.
 */
import { constants } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/index.js';
import { isFileName } from '../core/file-fields.js';
import { loadCatalog } from '../core/load-catalog.js';
import { namesInText } from '../records/files/stored-names.js';
import { filesFolderOf } from '../store/files/open-file-storage.js';
import { fileValuesIn } from '../store/sqlite/backup.js';

/** Where `restock backup FILE` copies the files. */
export const filesFolderOfBackup = (file: string) => `${file}.files`;

/** Copies the files the backup `file` names; resolves with the line to print, or undefined where no collection has files. */
export async function copyBackupFiles(config: Config, file: string): Promise<string | undefined> {
  const collections = loadCatalog(config).collections.filter((collection) => collection.files.length > 0);
  if (collections.length === 0) return undefined;
  if (config.filesUrl !== '') {
    return `files are in ${config.filesUrl} and were not copied: copy that prefix with S3's own tools (aws s3 sync)`;
  }
  const from = filesFolderOf(config);
  const into = filesFolderOfBackup(file);
  // Files may be private (an order's attachments): only the owner reads them, as the database's copy.
  await mkdir(into, { mode: 0o700 });
  let copied = 0;
  let gone = 0;
  for (const { plural, files } of collections) {
    await mkdir(join(into, plural), { mode: 0o700 });
    const fields = files.map((field) => field.name);
    for (const text of fileValuesIn(file, plural, fields)) {
      for (const name of namesInText(text)) {
        if (!isFileName(name)) continue;
        try {
          await copyFile(join(from, plural, name), join(into, plural, name), constants.COPYFILE_EXCL);
          copied++;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          gone++;
        }
      }
    }
  }
  const missing = gone > 0 ? `; ${gone} were gone (their records changed after the copy was taken)` : '';
  return `copied ${copied} files from ${from} to ${into}${missing}`;
}
