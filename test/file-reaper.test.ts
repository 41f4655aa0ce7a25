/**
 * The reaper, on both stores: once a change commits, the files it left behind are removed
 * from the storage with their thumbnails (a delete alone, in a batch, by a cascade; a file
 * replaced, one of several taken out), and the files still named stay. It follows the change
 * log from a place the database keeps, so an app started after a crash removes what the
 * one before left; where the log has forgotten the changes, it says so and leaves them to
 * the sweep.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import type { FileMeta } from '../src/core/file-fields.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { buildApp } from '../src/http/app.js';
import { FileReaper, sweepFiles } from '../src/records/files/index.js';
import { fileKey, thumbKey, thumbsOf } from '../src/store/files/file-keys.js';
import type { FileStorage } from '../src/store/files/file-storage.js';
import { folderStorage } from '../src/store/files/folder-storage.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { gone, holds, photoSchemas, storeFile } from './helpers/file-fixtures.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`the file reaper (${kind.name})`, () => {
    const schemas = photoSchemas();
    const config = (db: TestDatabase) =>
      defaultConfig({ databaseUrl: db.url, schemas, maxEventLoopDelay: 0, filesDir: join(root, 'unused') });
    let root: string;
    let db: TestDatabase;
    let store: Store;
    let storage: FileStorage;
    let app: FastifyInstance;
    const lines: string[] = [];
    const start = async () => {
      app = await buildApp({
        config: config(db),
        store,
        files: storage,
        logStream: { write: (line) => lines.push(line) },
      });
      await app.ready();
    };

    before(async () => {
      root = mkdtempSync(join(tmpdir(), 'restock-files-'));
      storage = folderStorage(root);
      db = await kind.create();
      store = await openStore(db.url, loadCatalog(config(db)));
      await start();
    });
    after(async () => {
      await app?.close();
      await store?.close();
      await db?.drop();
    });

    const threeFiles = async () =>
      (await Promise.all([1, 2, 3].map(() => storeFile(storage, 'photos', '10x10')))) as [FileMeta, FileMeta, FileMeta];
    const fileCollections = () =>
      loadCatalog(config(db)).collections.filter((collection) => collection.files.length > 0);
    /** Resolves once the reaper's place is the end of the photos' log: it moves there just after the removals. */
    const caughtUp = async () => {
      const { last } = await store.changes.bounds('photos');
      for (let attempt = 0; (await store.fileUpkeep.reaped('photos')) < last; attempt++) {
        assert.ok(attempt < 500, `the reaper's place never reached ${last}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const photos = () => store.collection('photos');
    const photo = async (fields: Record<string, unknown>) => (await photos().create(JSON.stringify(fields))).id;

    it("removes a deleted record's files and their thumbnails, and keeps another record's", async () => {
      const image = await storeFile(storage, 'photos', '10x10');
      const scan = await storeFile(storage, 'photos');
      const kept = await storeFile(storage, 'photos', '10x10');
      const id = await photo({ image, scans: [scan] });
      await photo({ image: kept });
      await photos().remove(id);
      await gone(storage, [
        fileKey('photos', image.name),
        thumbsOf('photos', image.name),
        fileKey('photos', scan.name),
      ]);
      assert.ok(await holds(storage, fileKey('photos', kept.name)));
      assert.ok(await holds(storage, thumbKey('photos', kept.name, '10x10')));
    });

    it("removes a replaced file's old bytes and thumbnails, and a scan taken out of several", async () => {
      const [old, fresh, a, b] = await Promise.all([
        storeFile(storage, 'photos', '20x20'),
        storeFile(storage, 'photos'),
        storeFile(storage, 'photos'),
        storeFile(storage, 'photos'),
      ]);
      const id = await photo({ image: old, scans: [a, b] });
      await photos().merge(id, { image: fresh, scans: [b] });
      await gone(storage, [fileKey('photos', old.name), thumbsOf('photos', old.name), fileKey('photos', a.name)]);
      for (const file of [fresh, b]) assert.ok(await holds(storage, fileKey('photos', file.name)), file.name);
      // A merge that leaves the files as they were removes none.
      await photos().merge(id, { albumId: null });
      const c = await storeFile(storage, 'photos');
      const other = await photo({ scans: [c] });
      await photos().remove(other);
      await gone(storage, [fileKey('photos', c.name)]);
      for (const file of [fresh, b]) assert.ok(await holds(storage, fileKey('photos', file.name)), file.name);
    });

    it("removes the files of records a cascade deletes, and of a batch's deletes", async () => {
      const album = await store.collection('albums').create('{"title":"trip"}');
      const [one, two, three] = await threeFiles();
      for (const image of [one, two]) await photo({ albumId: album.id, image });
      const alone = await photo({ image: three });
      await store.collection('albums').remove(album.id);
      await gone(
        storage,
        [one, two].flatMap((file) => [fileKey('photos', file.name), thumbsOf('photos', file.name)]),
      );
      assert.ok(await holds(storage, fileKey('photos', three.name)));
      const steps = [{ collection: 'photos', kind: 'remove' as const, id: alone, conditions: {} }];
      await store.batch({ next: (done) => steps[done.length], budgetMs: 10_000 });
      await gone(storage, [fileKey('photos', three.name)]);
    });

    it('finishes, after a crash, what the app before it left: a new app on the same database', async () => {
      await app.close();
      // While no app runs (crashed, or a command wrote), records are deleted and replaced.
      const [x, y, z] = await threeFiles();
      const deleted = await photo({ image: x });
      const replaced = await photo({ image: y });
      await photos().remove(deleted);
      await photos().merge(replaced, { image: z });
      assert.ok(await holds(storage, fileKey('photos', x.name)), 'nothing removes them while no app runs');
      await start();
      await gone(
        storage,
        [x, y].flatMap((file) => [fileKey('photos', file.name), thumbsOf('photos', file.name)]),
      );
      assert.ok(await holds(storage, fileKey('photos', z.name)));
      await caughtUp();
    });

    it('skips changes the log no longer holds, saying so, and the sweep removes their files', async () => {
      await app.close();
      const lost = await storeFile(storage, 'photos');
      await photos().remove(await photo({ image: lost }));
      await store.changes.bounds('photos'); // numbered (PostgreSQL numbers them after commit), so that the trim takes them
      assert.ok((await store.changes.trim(new Date(Date.now() + 60_000))) > 0);
      lines.length = 0;
      await start();
      await caughtUp();
      assert.ok(
        lines.some((line) => line.includes('the change log no longer holds these changes')),
        'the reaper says it skipped changes',
      );
      assert.ok(await holds(storage, fileKey('photos', lost.name)), 'the reaper could not know this file');
      assert.ok(
        (await sweepFiles({ upkeep: store.fileUpkeep, storage, collections: fileCollections(), graceMs: 0 })) >= 1,
      );
      assert.equal(await holds(storage, fileKey('photos', lost.name)), false);
    });

    it('tries a failed removal again, and moves its place on only once it is done', async () => {
      await app.close();
      const file = await storeFile(storage, 'photos');
      await photos().remove(await photo({ image: file }));
      const before = await store.fileUpkeep.reaped('photos');
      let calls = 0;
      const flaky = {
        async remove(keys: readonly string[]) {
          if (calls++ === 0) throw new Error('the storage is down');
          assert.equal(await store.fileUpkeep.reaped('photos'), before, 'not moved past what failed');
          await storage.remove(keys);
        },
      };
      const warnings: string[] = [];
      const log = { info() {}, warn: (_: object, message: string) => warnings.push(message) };
      const reaper = new FileReaper({
        changes: store.changes,
        upkeep: store.fileUpkeep,
        storage: flaky,
        catalog: loadCatalog(config(db)),
        log,
        retryMs: 50,
      });
      reaper.start();
      try {
        await gone(storage, [fileKey('photos', file.name)]);
      } finally {
        await reaper.stop();
      }
      assert.deepEqual(warnings, ['file reaper: removing old files failed; trying again']);
      await caughtUp();
      assert.ok((await store.fileUpkeep.reaped('photos')) > before);
      await start();
    });

    it('keeps its place moving forward only, whichever instance writes it', async () => {
      await store.fileUpkeep.advance('albums', 7);
      await store.fileUpkeep.advance('albums', 5);
      assert.equal(await store.fileUpkeep.reaped('albums'), 7);
      assert.equal(await store.fileUpkeep.reaped('nothing-yet'), 0);
    });
  });
}

describe('an app without file fields', () => {
  it('holds no file storage, reaper or sweep', async () => {
    const db = await STORE_KINDS[0]?.create();
    assert.ok(db);
    try {
      const app = await buildApp({
        config: defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0 }),
        logStream: false,
      });
      await app.ready();
      assert.equal(app.hasPlugin('restock-file-upkeep'), false);
      await app.close();
    } finally {
      await db.drop();
    }
  });
});
