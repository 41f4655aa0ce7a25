/**
 * The file storage contract, run alike on a folder and on S3-compatible object storage (a
 * real s3rver on 127.0.0.1): what is put is read back whole or by range, stated, listed
 * (staged uploads never), and removed with everything under it (a file's thumbnails); a
 * key that is not there reads as undefined and removes without error. And the settings
 * pick the storage: `FILES_URL` is S3, else a folder.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileKey, thumbKey, thumbsOf } from '../src/store/files/file-keys.js';
import type { FileStorage, FileStorageSettings } from '../src/store/files/file-storage.js';
import { folderStorage } from '../src/store/files/folder-storage.js';
import { openFileStorage } from '../src/store/files/open-file-storage.js';
import { s3Storage } from '../src/store/files/s3-storage.js';
import { type S3Server, s3SettingsOf, startS3Server, useS3TestCredentials } from './helpers/s3-server.js';
import { bytesOf, keysOf } from './helpers/stored-files.js';

let s3: S3Server;
before(async () => {
  useS3TestCredentials();
  s3 = await startS3Server();
});
after(() => s3.close());

/** Settings for the test server, each call under a prefix of its own so that tests share nothing. */
const s3Settings = (prefix?: string): FileStorageSettings => ({
  ...s3SettingsOf(s3, prefix),
  filesDir: '',
  databaseUrl: 'sqlite::memory:',
});

const KINDS: { name: string; open(): { storage: FileStorage; dispose(): Promise<void> } }[] = [
  {
    name: 'folder',
    open() {
      const root = mkdtempSync(join(tmpdir(), 'restock-files-'));
      const storage = folderStorage(root);
      return { storage, dispose: async () => rmSync(root, { recursive: true, force: true }) };
    },
  },
  {
    name: 's3',
    open() {
      return { storage: s3Storage(s3Settings()), dispose: async () => {} };
    },
  },
];

/** Stages `bytes` as an upload would: a file in the storage's staging folder. */
function stage(storage: FileStorage, bytes: Buffer): string {
  mkdirSync(storage.stagingDir, { recursive: true });
  const path = join(storage.stagingDir, `upload-${randomBytes(6).toString('hex')}`);
  writeFileSync(path, bytes);
  return path;
}

for (const kind of KINDS) {
  describe(`file storage (${kind.name})`, () => {
    /** Runs `body` on a fresh storage, closed and thrown away after. */
    async function withStorage(body: (storage: FileStorage) => Promise<void>): Promise<void> {
      const { storage, dispose } = kind.open();
      try {
        await body(storage);
      } finally {
        await storage.close();
        await dispose();
      }
    }

    it('puts a staged file under its key (the staged file gone) and reads it back whole', () =>
      withStorage(async (storage) => {
        const bytes = randomBytes(3 * 1024 * 1024 + 17);
        const staged = stage(storage, bytes);
        const key = fileKey('products', 'photo_abc.png');
        await storage.put(key, staged, 'image/png');
        assert.equal(existsSync(staged), false);
        const read = await bytesOf(await storage.read(key));
        assert.ok(read);
        assert.equal(createHash('sha256').update(read).digest('hex'), createHash('sha256').update(bytes).digest('hex'));
        const stat = await storage.stat(key);
        assert.equal(stat?.key, key);
        assert.equal(stat?.size, bytes.length);
        assert.ok(stat?.modified instanceof Date);
      }));

    it('reads a byte range, both ends inclusive', () =>
      withStorage(async (storage) => {
        const key = fileKey('orders', 'doc.pdf');
        await storage.put(key, stage(storage, Buffer.from('0123456789')), 'application/pdf');
        assert.equal((await bytesOf(await storage.read(key, { start: 2, end: 4 })))?.toString(), '234');
        assert.equal((await bytesOf(await storage.read(key, { start: 9, end: 9 })))?.toString(), '9');
        assert.equal((await bytesOf(await storage.read(key, { start: 0, end: 9 })))?.toString(), '0123456789');
      }));

    it('answers undefined for a key that is not there', () =>
      withStorage(async (storage) => {
        assert.equal(await storage.read(fileKey('products', 'missing.png')), undefined);
        assert.equal(await storage.read(fileKey('products', 'missing.png'), { start: 0, end: 1 }), undefined);
        assert.equal(await storage.stat(fileKey('products', 'missing.png')), undefined);
      }));

    it('stores bytes in hand (a thumbnail), a second put replacing the first', () =>
      withStorage(async (storage) => {
        const key = thumbKey('products', 'photo.png', '100x100');
        await storage.putBytes(key, Buffer.from('first'), 'image/png');
        assert.equal((await bytesOf(await storage.read(key)))?.toString(), 'first');
        await storage.putBytes(key, Buffer.from('second!'), 'image/png');
        assert.equal((await bytesOf(await storage.read(key)))?.toString(), 'second!');
        assert.equal((await storage.stat(key))?.size, 7);
      }));

    it("removes a file with its thumbnails' folder, and nothing else", () =>
      withStorage(async (storage) => {
        for (const name of ['a.png', 'b.png']) {
          await storage.put(fileKey('products', name), stage(storage, Buffer.from(name)), 'image/png');
          for (const size of ['100x100', '400x400']) {
            await storage.putBytes(thumbKey('products', name, size), Buffer.from(size), 'image/png');
          }
        }
        await storage.remove([fileKey('products', 'a.png'), thumbsOf('products', 'a.png')]);
        assert.equal(await storage.read(fileKey('products', 'a.png')), undefined);
        assert.equal(await storage.stat(thumbKey('products', 'a.png', '100x100')), undefined);
        assert.deepEqual(await keysOf(storage), [
          'products/b.png',
          'products/thumbs/b.png/100x100',
          'products/thumbs/b.png/400x400',
        ]);
      }));

    it('removes keys that are not there without error', () =>
      withStorage(async (storage) => {
        await storage.remove([]);
        await storage.remove([fileKey('products', 'never.png'), thumbsOf('products', 'never.png')]);
        await storage.putBytes(fileKey('products', 'once.png'), Buffer.from('x'), 'image/png');
        await storage.remove([fileKey('products', 'once.png')]);
        await storage.remove([fileKey('products', 'once.png')]);
        assert.deepEqual(await keysOf(storage), []);
      }));

    it('lists what is under a prefix, as a folder (never a sibling that starts alike), staged uploads never', () =>
      withStorage(async (storage) => {
        await storage.putBytes(fileKey('products', 'p.png'), Buffer.from('p'), 'image/png');
        await storage.putBytes(thumbKey('products', 'p.png', '100x100'), Buffer.from('t'), 'image/png');
        await storage.putBytes(fileKey('products2', 'q.png'), Buffer.from('q'), 'image/png');
        await storage.put(fileKey('orders', 'o.pdf'), stage(storage, Buffer.from('o')), 'application/pdf');
        // S3's staging folder is shared by the user's processes: this one is taken out after.
        const inProgress = stage(storage, Buffer.from('an upload in progress'));
        assert.deepEqual(await keysOf(storage), [
          'orders/o.pdf',
          'products/p.png',
          'products/thumbs/p.png/100x100',
          'products2/q.png',
        ]);
        assert.deepEqual(await keysOf(storage, 'products'), ['products/p.png', 'products/thumbs/p.png/100x100']);
        assert.deepEqual(await keysOf(storage, 'products/'), ['products/p.png', 'products/thumbs/p.png/100x100']);
        assert.deepEqual(await keysOf(storage, 'products/thumbs'), ['products/thumbs/p.png/100x100']);
        assert.deepEqual(await keysOf(storage, 'nothing'), []);
        for await (const object of storage.list('orders')) assert.equal(object.size, 1);
        rmSync(inProgress);
      }));
  });
}

describe('openFileStorage', () => {
  it('opens S3 for FILES_URL, a folder otherwise (FILES_DIR, else beside the SQLite file)', async () => {
    const picked = await openFileStorage(s3Settings('picked'));
    assert.equal(picked.description, `s3://${s3.bucket}/picked`);
    await picked.putBytes(fileKey('products', 'p.png'), Buffer.from('p'), 'image/png');
    assert.equal((await picked.stat(fileKey('products', 'p.png')))?.size, 1);
    await picked.close();
    const dir = mkdtempSync(join(tmpdir(), 'restock-files-'));
    try {
      const base = { filesUrl: '', filesS3Endpoint: '', filesS3Region: 'us-east-1' };
      const chosen = await openFileStorage({ ...base, filesDir: join(dir, 'chosen'), databaseUrl: 'sqlite::memory:' });
      assert.equal(chosen.description, `folder ${join(dir, 'chosen')}`);
      const beside = await openFileStorage({ ...base, filesDir: '', databaseUrl: `sqlite:${join(dir, 'restock.db')}` });
      assert.equal(beside.description, `folder ${join(dir, 'files')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
