/**
 * A file's life through the API, on both stores: uploaded with its record (the change feed's
 * event carries its metadata, never its bytes), replaced by another upload (the old bytes
 * go once the change commits), and gone with its record's delete.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import type { FileMeta } from '../src/core/file-fields.js';
import { buildApp } from '../src/http/app.js';
import { fileKey } from '../src/store/files/file-keys.js';
import type { FileStorage } from '../src/store/files/file-storage.js';
import { folderStorage } from '../src/store/files/folder-storage.js';
import { openEventStream } from './helpers/event-stream.js';
import { gone, holds, photoSchemas } from './helpers/file-fixtures.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import { filesFolder, multipart, png } from './helpers/uploads.js';

for (const kind of STORE_KINDS) {
  describe(`a file's life through the API (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let storage: FileStorage;
    let origin: string;

    before(async () => {
      db = await kind.create();
      const filesDir = filesFolder();
      storage = folderStorage(filesDir);
      const config = defaultConfig({ databaseUrl: db.url, schemas: photoSchemas(), filesDir, maxEventLoopDelay: 0 });
      app = await buildApp({ config, logStream: false });
      origin = await app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    const upload = async (method: 'POST' | 'PUT', url: string, bytes: Buffer, record: Record<string, unknown> = {}) => {
      const body = await multipart({ image: { name: 'picture.png', type: 'image/png', bytes } }, record);
      const response = await app.inject({ method, url, ...body });
      assert.ok(response.statusCode < 300, response.body);
      return response.json() as { id: number; image: FileMeta };
    };

    it("carries an upload's metadata in the change feed, never its bytes", async () => {
      const feed = await openEventStream(`${origin}/photos/events/`);
      try {
        const bytes = await png(40, 30);
        const created = await upload('POST', '/photo/', bytes, { albumId: null });
        const [event] = await feed.take(1);
        assert.equal(event?.event, 'created');
        const sent = JSON.parse(event?.data as string) as { image: FileMeta };
        assert.deepEqual(Object.keys(sent.image).sort(), ['name', 'sha256', 'size', 'type']);
        assert.deepEqual(sent.image, created.image);
        assert.equal(sent.image.size, bytes.length);
        assert.ok((event?.data.length as number) < 400, 'no bytes: the event is the record alone');
        assert.ok(!event?.data.includes(bytes.subarray(0, 12).toString('base64')));
      } finally {
        await feed.close();
      }
    });

    it('removes the bytes an upload replaced, and the last ones with the record', async () => {
      const first = await upload('POST', '/photo/', await png(8, 8));
      assert.ok(await holds(storage, fileKey('photos', first.image.name)));
      const second = await upload('PUT', `/photo/${first.id}/`, await png(9, 9));
      assert.notEqual(second.image.name, first.image.name);
      await gone(storage, [fileKey('photos', first.image.name)]);
      assert.ok(await holds(storage, fileKey('photos', second.image.name)));
      const deleted = await app.inject({ method: 'DELETE', url: `/photo/${first.id}/` });
      assert.equal(deleted.statusCode, 200, deleted.body);
      await gone(storage, [fileKey('photos', second.image.name)]);
    });
  });
}
