/** S3-compatible object storage (`FILES_URL=s3://bucket/prefix`): written by the storage helper. */
import { ConfigError } from '../../config/index.js';
import type { FileStorage, FileStorageSettings } from './file-storage.js';

export function s3Storage(settings: FileStorageSettings): FileStorage {
  throw new ConfigError(`FILES_URL ${settings.filesUrl}: S3 storage is not built yet`);
}
