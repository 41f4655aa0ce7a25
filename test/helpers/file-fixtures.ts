/**
 * Collections with files for the life-cycle tests: albums, and photos in them (each with an
 * image and up to three scans) whose album's delete cascades to them. Files are seeded as an
 * upload leaves them: bytes put in the storage, then a record naming them written through the
 * store.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileMeta } from '../../src/core/file-fields.js';
import { fileKey, newFileName, thumbKey } from '../../src/store/files/file-keys.js';
import type { FileStorage } from '../../src/store/files/file-storage.js';

/** A schema folder holding albums and photos. */
export function photoSchemas(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-file-schemas-'));
  writeFileSync(
    join(dir, 'albums.schema.json'),
    JSON.stringify({ 'x-singular': 'album', type: 'object', properties: { title: { type: 'string' } } }),
  );
  writeFileSync(
    join(dir, 'photos.schema.json'),
    JSON.stringify({
      'x-singular': 'photo',
      type: 'object',
      properties: {
        albumId: { type: ['integer', 'null'], 'x-ref': 'albums', 'x-on-delete': 'cascade' },
        image: { 'x-file': { types: ['image/png'], thumbs: ['10x10', '20x20'] } },
        scans: { 'x-file': { maxFiles: 3 } },
      },
    }),
  );
  return dir;
}

/** Puts a new file of `collection` in `storage`, with a thumbnail when `thumb` is given; resolves with its metadata. */
export async function storeFile(storage: FileStorage, collection: string, thumb?: string): Promise<FileMeta> {
  const bytes = randomBytes(64);
  const name = newFileName('picture.png', 'png');
  await storage.putBytes(fileKey(collection, name), bytes, 'image/png');
  if (thumb) await storage.putBytes(thumbKey(collection, name, thumb), randomBytes(16), 'image/png');
  return { name, type: 'image/png', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Whether `key` is in `storage`, as a file or as a folder of thumbnails. */
export async function holds(storage: FileStorage, key: string): Promise<boolean> {
  if (await storage.stat(key)) return true;
  for await (const _ of storage.list(key)) return true;
  return false;
}

/**
 * Resolves once none of `keys` is in `storage`: the reaper works after the commit, so a test
 * looks again (every 20 ms, at most 500 times) rather than sleeping a guessed while.
 */
export async function gone(storage: FileStorage, keys: readonly string[]): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const left = [];
    for (const key of keys) if (await holds(storage, key)) left.push(key);
    if (left.length === 0) return;
    if (attempt === 499) throw new Error(`still stored: ${left.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
