/**
 * The commands and files (real processes): `restock backup` copies the files its copy of the
 * database names into FILE.files (the bytes, no thumbnail, nothing no record names, readable
 * by the owner alone); `restock export` writes the files' metadata, never their bytes; and
 * `restock import` refuses, by its line, a record naming a file the storage lacks, importing
 * nothing, and imports it once the file is there.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { fileKey } from '../src/store/files/file-keys.js';
import { folderStorage } from '../src/store/files/folder-storage.js';
import { openStore } from '../src/store/open-store.js';
import { photoSchemas, storeFile } from './helpers/file-fixtures.js';
import { runCommand } from './helpers/server.js';
import { sqliteKind } from './helpers/stores.js';

/** A SQLite database of photos, its files in a folder of their own, and the environment a command needs for both. */
async function photosDatabase() {
  const db = await sqliteKind.create();
  const schemas = photoSchemas();
  const filesDir = mkdtempSync(join(tmpdir(), 'restock-files-'));
  const env = { DATABASE_URL: db.url, SCHEMAS: schemas, FILES_DIR: filesDir };
  return { db, schemas, filesDir, storage: folderStorage(filesDir), env };
}

describe('the commands and files', () => {
  it('backup copies the files its copy names beside it; export writes their metadata only', async () => {
    const { db, schemas, filesDir, storage, env } = await photosDatabase();
    try {
      const store = await openStore(db.url, loadCatalog(defaultConfig({ databaseUrl: db.url, schemas })));
      const [image, a, b, orphan] = await Promise.all([
        storeFile(storage, 'photos', '10x10'),
        storeFile(storage, 'photos'),
        storeFile(storage, 'photos'),
        storeFile(storage, 'photos'),
      ]);
      await store.collection('photos').create(JSON.stringify({ image, scans: [a, b] }));
      await store.collection('photos').create('{}');
      await store.close();

      const copy = join(mkdtempSync(join(tmpdir(), 'restock-backup-')), 'copy.db');
      const result = await runCommand(['backup', copy], env);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /\ncopied 3 files from .* to .*copy\.db\.files\n$/);
      const folder = `${copy}.files`;
      assert.equal(statSync(folder).mode & 0o777, 0o700);
      assert.deepEqual(readdirSync(join(folder, 'photos')).sort(), [image.name, a.name, b.name].sort());
      assert.deepEqual(
        readFileSync(join(folder, 'photos', image.name)),
        readFileSync(join(filesDir, ...fileKey('photos', image.name).split('/'))),
      );
      assert.equal(existsSync(join(folder, 'photos', orphan.name)), false, 'no record names it');

      const again = await runCommand(['backup', join(copy, '..', 'other.db')], env);
      assert.equal(again.code, 0, again.stderr);
      const exported = await runCommand(['export', '-c', 'photos'], env);
      assert.equal(exported.code, 0, exported.stderr);
      const [first] = exported.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(first.image, image, 'the metadata, exactly; no bytes');
    } finally {
      await db.drop();
    }
  });

  it('import refuses a record naming a file the storage lacks, by its line, and takes it once the file is there', async () => {
    const { db, storage, env } = await photosDatabase();
    try {
      const there = await storeFile(storage, 'photos');
      const elsewhere = folderStorage(mkdtempSync(join(tmpdir(), 'restock-files-')));
      const missing = await storeFile(elsewhere, 'photos');
      const input = join(mkdtempSync(join(tmpdir(), 'restock-import-')), 'photos.ndjson');
      writeFileSync(input, `${JSON.stringify({ image: there })}\n${JSON.stringify({ scans: [there, missing] })}\n`);
      const refused = await runCommand(['import', input, '-c', 'photos'], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`line 2: it names the file ${missing.name}, which the file storage`));
      assert.match(refused.stderr, /nothing was imported/);
      const checked = await runCommand(['import', input, '-c', 'photos', '--dry-run'], env);
      assert.equal(checked.code, 1);
      assert.match(checked.stderr, /line 2: it names the file/);

      const bytes = readFileSync(join(elsewhere.stagingDir, '..', 'photos', missing.name));
      await storage.putBytes(fileKey('photos', missing.name), bytes, missing.type);
      const imported = await runCommand(['import', input, '-c', 'photos'], env);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /^imported 2 photos/);
    } finally {
      await db.drop();
    }
  });
});
