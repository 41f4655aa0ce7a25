/**
 * The sweep, on both stores: a stored file no record names goes once it is older than the
 * grace, with its thumbnails; a younger one stays (its write may be under way), and so does
 * every file a record names, however old; thumbnails of a name no record holds go, and so do
 * uploads staged longer ago than the grace. The app runs it when it is ready.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultConfig } from '../src/config/index.js';
import type { Collection } from '../src/core/collection.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import { sweepFiles } from '../src/records/files/file-sweep.js';
import { fileKey, thumbKey, thumbsOf } from '../src/store/files/file-keys.js';
import type { FileStorage } from '../src/store/files/file-storage.js';
import { folderStorage } from '../src/store/files/folder-storage.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { gone, holds, photoSchemas, storeFile } from './helpers/file-fixtures.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const HOUR_MS = 3_600_000;

for (const kind of STORE_KINDS) {
  describe(`the file sweep (${kind.name})`, () => {
    const schemas = photoSchemas();
    let root: string;
    let db: TestDatabase;
    let store: Store;
    let storage: FileStorage;
    let collections: Collection[];
    const config = () => defaultConfig({ databaseUrl: db.url, schemas, maxEventLoopDelay: 0, filesDir: root });

    before(async () => {
      root = mkdtempSync(join(tmpdir(), 'restock-sweep-'));
      storage = folderStorage(root);
      db = await kind.create();
      const catalog = loadCatalog(config());
      collections = catalog.collections.filter((collection) => collection.files.length > 0);
      store = await openStore(db.url, catalog);
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    /** Makes the object under `key` (a file, or each file of a folder) look `ms` old. */
    const age = (key: string, ms: number) => {
      const when = new Date(Date.now() - ms);
      utimesSync(join(root, ...key.split('/')), when, when);
    };

    it('removes what no record names past the grace, and keeps the young and the named', async () => {
      const [orphan, young, named, listed] = await Promise.all([
        storeFile(storage, 'photos', '10x10'),
        storeFile(storage, 'photos'),
        storeFile(storage, 'photos', '10x10'),
        storeFile(storage, 'photos'),
      ]);
      // Enough records for several pages of the read, the named ones among the last.
      const records = Array.from({ length: 25 }, () => '{}');
      records.push(JSON.stringify({ image: named, scans: [listed] }));
      await store.collection('photos').createMany(records);
      // A thumbnail made for a name no record holds any more (its file removed as it was made).
      const stray = thumbKey('photos', 'stray_0123456789.png', '10x10');
      await storage.putBytes(stray, Buffer.from('thumb'), 'image/png');
      for (const key of [fileKey('photos', orphan.name), thumbKey('photos', orphan.name, '10x10'), stray]) {
        age(key, 2 * HOUR_MS);
      }
      for (const file of [named, listed]) age(fileKey('photos', file.name), 100 * HOUR_MS);
      age(thumbKey('photos', named.name, '10x10'), 100 * HOUR_MS);
      // Uploads staged when a process died, and one arriving now.
      mkdirSync(storage.stagingDir, { recursive: true });
      const [stale, arriving] = [join(storage.stagingDir, 'stale'), join(storage.stagingDir, 'arriving')];
      writeFileSync(stale, 'half');
      writeFileSync(arriving, 'half');
      utimesSync(stale, new Date(Date.now() - 2 * HOUR_MS), new Date(Date.now() - 2 * HOUR_MS));

      const removed = await sweepFiles({
        upkeep: store.fileUpkeep,
        storage,
        collections,
        graceMs: HOUR_MS,
        pageSize: 10,
      });

      assert.equal(removed, 4, 'the orphan, its thumbnail, the stray thumbnail, the staged upload');
      for (const key of [fileKey('photos', orphan.name), thumbsOf('photos', orphan.name), stray]) {
        assert.equal(await holds(storage, key), false, key);
      }
      assert.ok(await holds(storage, fileKey('photos', young.name)), 'younger than the grace');
      for (const file of [named, listed]) assert.ok(await holds(storage, fileKey('photos', file.name)), file.name);
      assert.ok(await holds(storage, thumbKey('photos', named.name, '10x10')));
      const left: string[] = [];
      for await (const object of storage.list('photos/')) left.push(object.key);
      assert.deepEqual(
        left.sort(),
        [
          fileKey('photos', young.name),
          fileKey('photos', named.name),
          fileKey('photos', listed.name),
          thumbKey('photos', named.name, '10x10'),
        ].sort(),
      );
      assert.deepEqual(readdirSync(storage.stagingDir), ['arriving']);
    });

    it('leaves what is not a file of a file collection: another folder, a key of no known shape', async () => {
      await storage.putBytes('elsewhere/kept.txt', Buffer.from('x'), 'text/plain');
      await storage.putBytes('photos/thumbs/odd', Buffer.from('x'), 'text/plain');
      age('elsewhere/kept.txt', 2 * HOUR_MS);
      age('photos/thumbs/odd', 2 * HOUR_MS);
      await sweepFiles({ upkeep: store.fileUpkeep, storage, collections, graceMs: 0 });
      assert.ok(await holds(storage, 'elsewhere/kept.txt'));
      assert.ok(await holds(storage, 'photos/thumbs/odd'));
    });

    it('runs in the app once it is ready', async () => {
      const orphan = await storeFile(storage, 'photos');
      const app = await buildApp({
        config: { ...config(), filesSweepGraceSeconds: 0 },
        store,
        files: storage,
        logStream: false,
      });
      try {
        await app.ready();
        await gone(storage, [fileKey('photos', orphan.name)]);
      } finally {
        await app.close();
      }
    });
  });
}
