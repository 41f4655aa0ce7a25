/**
 * The file storage the settings name: S3-compatible object storage for `FILES_URL`, else
 * the folder `FILES_DIR`, else `files` beside the SQLite file (`./data/files` when the
 * database is PostgreSQL or in memory).
 */
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../../config/index.js';
import { sqlitePathOf } from '../open-store.js';
import type { FileStorage, FileStorageSettings } from './file-storage.js';
import { folderStorage } from './folder-storage.js';

export async function openFileStorage(settings: FileStorageSettings): Promise<FileStorage> {
  if (settings.filesUrl !== '') {
    const { s3Storage } = await import('./s3-storage.js');
    return s3Storage(settings);
  }
  return folderStorage(filesFolderOf(settings));
}

/** The folder files are kept in when no `FILES_URL` is set. */
export function filesFolderOf({ filesDir, databaseUrl }: Pick<Config, 'filesDir' | 'databaseUrl'>): string {
  if (filesDir !== '') return resolve(filesDir);
  const sqlite = sqlitePathOf(databaseUrl);
  if (sqlite !== undefined && sqlite !== ':memory:') return join(dirname(resolve(sqlite)), 'files');
  return resolve('data', 'files');
}
