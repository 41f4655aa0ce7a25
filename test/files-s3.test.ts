/**
 * Files kept in S3-compatible object storage (a real s3rver on 127.0.0.1): what the S3
 * storage does beyond the contract every storage keeps (test/file-storage.test.ts), and two
 * instances on one PostgreSQL database sharing a bucket, as the service runs when it has
 * many: what one stores, the other finds, and what a change through either replaced or
 * deleted leaves the bucket.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import type { FileMeta } from '../src/core/file-fields.js';
import { buildApp } from '../src/http/app.js';
import { fileKey, thumbKey, thumbsOf } from '../src/store/files/file-keys.js';
import type { FileStorage } from '../src/store/files/file-storage.js';
import { s3Storage } from '../src/store/files/s3-storage.js';
import { body, useDatabase } from './helpers/app.js';
import { gone, holds } from './helpers/file-fixtures.js';
import { OPEN_SHOP_SCHEMAS } from './helpers/open-shop.js';
import { type S3Server, s3SettingsOf, startS3Server, useS3TestCredentials } from './helpers/s3-server.js';
import { bytesOf, keysOf } from './helpers/stored-files.js';
import { POSTGRES_AVAILABLE, postgresKind } from './helpers/stores.js';
import { multipart, png } from './helpers/uploads.js';

let s3: S3Server;
before(async () => {
  useS3TestCredentials();
  s3 = await startS3Server();
});
after(() => s3?.close());

describe('S3 storage', () => {
  it('keeps keys under the prefix of FILES_URL, and lists them without it', async () => {
    const prefix = `p${randomBytes(6).toString('hex')}/deeper`;
    const inside = s3Storage(s3SettingsOf(s3, prefix));
    const bare = s3Storage(s3SettingsOf(s3, ''));
    try {
      assert.equal(inside.description, `s3://${s3.bucket}/${prefix}`);
      await inside.putBytes(fileKey('products', 'p.png'), Buffer.from('p'), 'image/png');
      assert.deepEqual(await keysOf(inside), ['products/p.png']);
      assert.deepEqual(await keysOf(bare, prefix), [`${prefix}/products/p.png`]);
      assert.equal((await bytesOf(await bare.read(`${prefix}/products/p.png`)))?.toString(), 'p');
    } finally {
      await inside.close();
      await bare.close();
    }
  });

  it('removes a folder of more objects than one listing page holds', async () => {
    const storage = s3Storage(s3SettingsOf(s3));
    try {
      const folder = thumbsOf('products', 'many.png');
      for (let start = 0; start < 1010; start += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            storage.putBytes(`${folder}/${start + i}x1`, Buffer.from('t'), 'image/png'),
          ),
        );
      }
      await storage.putBytes(fileKey('products', 'kept.png'), Buffer.from('k'), 'image/png');
      assert.equal((await keysOf(storage, folder)).length, 1050);
      await storage.remove([fileKey('products', 'many.png'), folder]);
      assert.deepEqual(await keysOf(storage), ['products/kept.png']);
    } finally {
      await storage.close();
    }
  });

  it('fails a read from a bucket that is not there, rather than call the file missing', async () => {
    const storage = s3Storage({ ...s3SettingsOf(s3), filesUrl: 's3://no-such-bucket/files' });
    try {
      await assert.rejects(storage.read(fileKey('products', 'p.png')), { name: 'NoSuchBucket' });
    } finally {
      await storage.close();
    }
  });

  it('serves more downloads at once than the SDK has connections by default (50), each held open', async () => {
    const storage = s3Storage(s3SettingsOf(s3));
    try {
      const picture = randomBytes(1024 * 1024);
      await storage.putBytes(fileKey('products', 'p.png'), picture, 'image/png');
      // Unread, each body keeps its connection busy, as a slow client's download does.
      const held = await Promise.all(Array.from({ length: 60 }, () => storage.read(fileKey('products', 'p.png'))));
      assert.deepEqual(await bytesOf(await storage.read(fileKey('products', 'p.png'))), picture);
      for (const body of held) assert.deepEqual(await bytesOf(body), picture);
    } finally {
      await storage.close();
    }
  });
});

describe('S3 storage staging', { skip: process.getuid === undefined && 'no user ids here' }, () => {
  it("stages uploads in the user's private folder, shared by every storage and kept at close", async () => {
    const one = s3Storage(s3SettingsOf(s3));
    const two = s3Storage(s3SettingsOf(s3));
    assert.equal(one.stagingDir, join(tmpdir(), `restock-uploads-${process.getuid?.()}`));
    assert.equal(two.stagingDir, one.stagingDir);
    assert.equal(statSync(one.stagingDir).mode & 0o077, 0);
    await one.close();
    await two.close();
    assert.ok(existsSync(one.stagingDir), 'other processes may be staging there');
  });

  it('stages in a folder of its own, removed at close, when the shared one is open to others', async () => {
    const temporary = process.env.TMPDIR;
    const dir = mkdtempSync(join(tmpdir(), 'restock-tmp-'));
    process.env.TMPDIR = dir;
    try {
      const shared = join(dir, `restock-uploads-${process.getuid?.()}`);
      mkdirSync(shared);
      chmodSync(shared, 0o777);
      const storage = s3Storage(s3SettingsOf(s3));
      assert.notEqual(storage.stagingDir, shared);
      assert.equal(dirname(storage.stagingDir), dir);
      assert.equal(statSync(storage.stagingDir).mode & 0o077, 0);
      await storage.close();
      assert.equal(existsSync(storage.stagingDir), false);
    } finally {
      if (temporary === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = temporary;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('two instances on one PostgreSQL sharing S3', {
  skip: !POSTGRES_AVAILABLE && 'PostgreSQL is not available',
}, () => {
  const context = useDatabase(postgresKind);
  let bucket: FileStorage;
  let one: FastifyInstance;
  let two: FastifyInstance;
  before(async () => {
    const settings = s3SettingsOf(s3);
    // The bucket as the instances see it, to look inside.
    bucket = s3Storage(settings);
    const config = defaultConfig({
      maxEventLoopDelay: 0,
      schemas: OPEN_SHOP_SCHEMAS,
      ...settings,
      databaseUrl: context.db.url,
    });
    one = context.holding(await buildApp({ config, logStream: false }));
    two = context.holding(await buildApp({ config, logStream: false }));
  });
  after(() => bucket?.close());

  const upload = async (app: FastifyInstance, method: 'POST' | 'PUT', url: string, bytes: Buffer) => {
    const form = await multipart({ picture: { name: 'lamp.png', type: 'image/png', bytes } }, { name: 'Lamp' });
    const response = await app.inject({ method, url, ...form });
    assert.ok(response.statusCode < 300, response.body);
    return body<{ id: number; picture: FileMeta }>(response);
  };

  it('keeps an upload through one in the bucket, where the other serves it: whole, a range, a thumbnail', async () => {
    const picture = await png(40, 30);
    const { id, picture: meta } = await upload(one, 'POST', '/product/', picture);
    assert.equal(meta.size, picture.length);
    assert.deepEqual(await bytesOf(await bucket.read(fileKey('products', meta.name))), picture);
    const read = await two.inject({ url: `/product/${id}/` });
    assert.deepEqual(body<{ picture: FileMeta }>(read).picture, meta);

    const url = `/product/${id}/files/picture/${meta.name}`;
    const whole = await two.inject({ url });
    assert.equal(whole.statusCode, 200, whole.body);
    assert.equal(whole.headers['content-type'], 'image/png');
    assert.deepEqual(whole.rawPayload, picture);
    const part = await two.inject({ url, headers: { range: 'bytes=1-3' } });
    assert.equal(part.statusCode, 206);
    assert.deepEqual(part.rawPayload, picture.subarray(1, 4));
    const thumb = await two.inject({ url: `${url}?thumb=100x100` });
    assert.equal(thumb.statusCode, 200, thumb.body);
    assert.ok(await holds(bucket, thumbKey('products', meta.name, '100x100')), 'the thumbnail is kept in the bucket');
    const again = await one.inject({ url: `${url}?thumb=100x100` });
    assert.deepEqual(again.rawPayload, thumb.rawPayload);
  });

  it('removes from the bucket what a change through either replaced or deleted, thumbnails too', async () => {
    const first = await upload(one, 'POST', '/product/', await png(8, 8));
    const second = await upload(two, 'PUT', `/product/${first.id}/`, await png(9, 9));
    assert.notEqual(second.picture.name, first.picture.name);
    await gone(bucket, [fileKey('products', first.picture.name)]);
    const thumb = await one.inject({ url: `/product/${first.id}/files/picture/${second.picture.name}?thumb=100x100` });
    assert.equal(thumb.statusCode, 200, thumb.body);
    assert.ok(await holds(bucket, thumbsOf('products', second.picture.name)));
    const deleted = await one.inject({ method: 'DELETE', url: `/product/${first.id}/` });
    assert.equal(deleted.statusCode, 200, deleted.body);
    await gone(bucket, [fileKey('products', second.picture.name), thumbsOf('products', second.picture.name)]);
  });
});
