/**
 * An import into a collection with file fields: each line's files must be in the file
 * storage already (copied there first: docs/operations.md says how), or the line is refused,
 * as any line that cannot be imported is, and so the whole import. A record naming bytes
 * that are not there would be served as a 404 where its metadata promises a file, and
 * nothing would ever bring them back; the mistake is cheaper to see now, by its line.
 */
import type { Config } from '../../config/index.js';
import type { Collection } from '../../core/collection.js';
import { fileNamesOf } from '../../core/file-fields.js';
import { fileKey } from '../../store/files/file-keys.js';
import type { FileStorage } from '../../store/files/file-storage.js';
import { openFileStorage } from '../../store/files/open-file-storage.js';
import { BadRecord, type Pending } from './record-line.js';

export interface FileCheck {
  /** Refuses `pending` with its line when the storage lacks a file it names. */
  check(pending: Pending): Promise<void>;
  close(): Promise<void>;
}

/** The check for `collection`: none where it has no file fields. */
export async function missingFilesCheck(config: Config, collection: Collection): Promise<FileCheck | undefined> {
  if (collection.files.length === 0) return undefined;
  const storage: FileStorage = await openFileStorage(config);
  return {
    async check(pending) {
      for (const name of fileNamesOf(pending.fields, collection.files)) {
        if (await storage.stat(fileKey(collection.plural, name))) continue;
        throw new BadRecord(
          pending.line,
          `it names the file ${name}, which the file storage (${storage.description}) does not hold; ` +
            `copy the files of ${collection.plural} there first`,
        );
      }
    },
    close: () => storage.close(),
  };
}
