/**
 * Uploads put into the file storage around their record's write: each staged file goes
 * under its key before the write (so the record never names bytes that are not there), and a
 * write that fails takes them out again. A crash between the two leaves files no record
 * names, which the sweep removes after its grace time.
 */

import { fileKey } from '../../store/files/file-keys.js';
import type { FileStorage } from '../../store/files/file-storage.js';
import type { StagedFile } from './staging.js';

/** What a collection's files need: where their bytes go, and how large an image may be. */
export interface FileSettings {
  readonly storage: FileStorage;
  /** The most pixels an uploaded image may have (FILES_MAX_PIXELS). */
  readonly maxPixels: number;
}

/** Runs `write` with `uploads` (of `collection`) put into `storage` first; removes them when it fails. */
export async function withStoredUploads<T>(
  storage: FileStorage | undefined,
  collection: string,
  uploads: readonly StagedFile[],
  write: () => Promise<T>,
): Promise<T> {
  if (!storage || uploads.length === 0) return write();
  const put: string[] = [];
  try {
    for (const { meta, path } of uploads) {
      const key = fileKey(collection, meta.name);
      await storage.put(key, path, meta.type);
      put.push(key);
    }
    return await write();
  } catch (error) {
    // At worst (the storage failing now too) the sweep removes them later: the refusal matters more.
    await storage.remove(put).catch(() => undefined);
    throw error;
  }
}

/**
 * The text a retry under the same `Idempotency-Key` is compared by: the record's, with each
 * upload's digest in place of the name made for it, so that a retry of the same files matches.
 */
export function uploadsFingerprint(data: string, uploads: readonly StagedFile[]): string {
  let text = data;
  for (const { meta } of uploads) text = text.replaceAll(meta.name, meta.sha256);
  return text;
}
