/** Reading what a file storage holds, for the storage suites. */
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { FileStorage } from '../../src/store/files/file-storage.js';

/** The whole of a read, or undefined for a key that is not there. */
export async function bytesOf(stream: Readable | undefined): Promise<Buffer | undefined> {
  return stream === undefined ? undefined : await buffer(stream);
}

/** The keys `storage` lists under `prefix`, sorted. */
export async function keysOf(storage: FileStorage, prefix?: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.list(prefix)) keys.push(object.key);
  return keys.sort();
}
