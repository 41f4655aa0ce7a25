/**
 * Files in a local folder (`FILES_DIR`, beside the SQLite file by default): each key a file
 * under the root, uploads staged in `<root>/.staging` on the same disk, so that putting one
 * is a rename, made durable (the file and its folder synced) before the record commits.
 */
import { mkdir, open, opendir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { ByteRange, FileStorage, StoredObject } from './file-storage.js';

const STAGING = '.staging';

/** The folder `root` as file storage; its folders are made as files arrive (a collection with no upload leaves none). */
export function folderStorage(root: string): FileStorage {
  const stagingDir = join(root, STAGING);
  const pathOf = (key: string) => join(root, ...key.split('/'));

  async function synced(path: string, directory = false): Promise<void> {
    const handle = await open(path, directory ? 'r' : 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async function* walk(folder: string): AsyncGenerator<StoredObject> {
    let entries: Awaited<ReturnType<typeof opendir>>;
    try {
      entries = await opendir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for await (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (path !== stagingDir) yield* walk(path);
      } else if (entry.isFile()) {
        const stats = await stat(path).catch(() => undefined);
        if (stats) yield { key: relative(root, path).split(sep).join('/'), size: stats.size, modified: stats.mtime };
      }
    }
  }

  const storage: FileStorage = {
    description: `folder ${root}`,
    stagingDir,
    async put(key, path) {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      await synced(path);
      await rename(path, target);
      await synced(dirname(target), true);
    },
    async putBytes(key, bytes) {
      await mkdir(stagingDir, { recursive: true });
      const staged = join(stagingDir, `${process.pid}-${Math.random().toString(36).slice(2)}`);
      const handle = await open(staged, 'w');
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
      await storage.put(key, staged, '');
    },
    async read(key, range?: ByteRange): Promise<Readable | undefined> {
      const path = pathOf(key);
      const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (!handle) return undefined;
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    },
    async stat(key) {
      const stats = await stat(pathOf(key)).catch(() => undefined);
      return stats?.isFile() ? { key, size: stats.size, modified: stats.mtime } : undefined;
    },
    async remove(keys) {
      for (const key of keys) await rm(pathOf(key), { recursive: true, force: true });
    },
    list(prefix = '') {
      return walk(prefix === '' ? root : pathOf(prefix.replace(/\/$/, '')));
    },
    async close() {},
  };
  return storage;
}
