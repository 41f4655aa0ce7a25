/**
 * The sweep: removes what a crash or a lost removal left in the file storage. The reaper
 * removes a record's old files as changes commit; what it cannot see is a file put for a
 * write that never committed (the process died between the put and the commit), a
 * thumbnail made as its file was being removed, an upload staged when the process died, or
 * the files of changes the change log forgot before the reaper read them. So now and then
 * every stored file of a file collection that no record names, and older than the grace
 * (longer than any upload and its write take), goes, with its thumbnails.
 *
 * The cost: each run reads the file fields (those alone, by the database) of every record
 * of every collection that has them, a page at a time by id, and keeps the names they hold
 * in memory (about 100 bytes a file), then lists the collections' stored objects (one
 * listing request per 1,000 objects on S3) and removes what no record names. A million
 * files is a few seconds of reads and about 100 MB for the time of the run.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Collection } from '../../core/collection.js';
import type { FileUpkeep } from '../../store/file-upkeep-model.js';
import type { FileStorage } from '../../store/files/file-storage.js';
import { namesInText, storedKeysOf } from './stored-names.js';

export interface FileSweepOptions {
  readonly upkeep: Pick<FileUpkeep, 'fileValues'>;
  readonly storage: Pick<FileStorage, 'list' | 'remove' | 'stagingDir'>;
  /** The collections with file fields. */
  readonly collections: readonly Collection[];
  /** How old a file no record names must be to go: younger ones may belong to a write under way. */
  readonly graceMs: number;
  readonly now?: () => number;
  /** Records read, and keys removed, at once. */
  readonly pageSize?: number;
}

/** One sweep; resolves with how many stored objects (files, thumbnails, staged uploads) it removed. */
export async function sweepFiles(options: FileSweepOptions): Promise<number> {
  const cutoff = (options.now ?? Date.now)() - options.graceMs;
  let removed = 0;
  for (const collection of options.collections) {
    // Read before the listing: a file put after this read is younger than the grace (unless it is 0).
    const named = await namedFiles(options, collection);
    removed += await sweepCollection(options, collection.plural, named, cutoff);
  }
  return removed + (await sweepStaging(options.storage.stagingDir, cutoff));
}

/** Every file name the records of `collection` hold. */
export async function namedFiles(
  { upkeep, pageSize = 1000 }: Pick<FileSweepOptions, 'upkeep' | 'pageSize'>,
  collection: Pick<Collection, 'plural' | 'files'>,
): Promise<Set<string>> {
  const fields = collection.files.map((field) => field.name);
  const named = new Set<string>();
  let after = 0;
  for (;;) {
    const page = await upkeep.fileValues(collection.plural, fields, after, pageSize);
    for (const record of page) for (const text of record.values) for (const name of namesInText(text)) named.add(name);
    if (page.length < pageSize) return named;
    after = (page.at(-1) as { id: number }).id;
  }
}

/** Removes the objects under `plural/` that no record names and that are older than `cutoff`. */
async function sweepCollection(
  { storage, pageSize = 1000 }: Pick<FileSweepOptions, 'storage' | 'pageSize'>,
  plural: string,
  named: ReadonlySet<string>,
  cutoff: number,
): Promise<number> {
  let batch: string[] = [];
  let removed = 0;
  const flush = async () => {
    if (batch.length > 0) await storage.remove(batch);
    batch = [];
  };
  for await (const object of storage.list(`${plural}/`)) {
    const [first, name, ...rest] = object.key.slice(plural.length + 1).split('/');
    // `<name>` is a file, `thumbs/<name>/<size>` one of its thumbnails; anything else is not restock's.
    const file = name === undefined ? first : first === 'thumbs' && rest.length === 1 ? name : undefined;
    if (file === undefined || named.has(file) || object.modified.getTime() >= cutoff) continue;
    const keys = name === undefined ? storedKeysOf(plural, [file]) : [object.key];
    if (keys.length === 0) continue;
    batch.push(...keys);
    removed++;
    if (batch.length >= pageSize) await flush();
  }
  await flush();
  return removed;
}

/** Removes uploads staged before `cutoff`: a process that died while receiving them left them. */
async function sweepStaging(folder: string, cutoff: number): Promise<number> {
  const entries = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  let removed = 0;
  for (const entry of entries) {
    const path = join(folder, entry);
    const stats = await stat(path).catch(() => undefined);
    // An upload still arriving is written to as it comes, which keeps it younger than the grace.
    if (!stats || stats.mtimeMs >= cutoff) continue;
    await rm(path, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
