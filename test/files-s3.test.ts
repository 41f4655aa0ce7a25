/**
 * Files kept in S3-compatible object storage (a real s3rver on 127.0.0.1) by two instances
 * on one PostgreSQL database, as the service runs when it has many: what one stores, the
 * other finds.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import type { FileMeta } from '../src/core/file-fields.js';
import { buildApp } from '../src/http/app.js';
import { fileKey } from '../src/store/files/file-keys.js';
import type { FileStorage } from '../src/store/files/file-storage.js';
import { s3Storage } from '../src/store/files/s3-storage.js';
import { body, useDatabase } from './helpers/app.js';
import { OPEN_SHOP_SCHEMAS } from './helpers/open-shop.js';
import { type S3Server, startS3Server, useS3TestCredentials } from './helpers/s3-server.js';
import { POSTGRES_AVAILABLE, postgresKind } from './helpers/stores.js';
import { multipart, png } from './helpers/uploads.js';

describe('two instances on one PostgreSQL sharing S3', { skip: !POSTGRES_AVAILABLE && 'PostgreSQL is not available' }, () => {
  const context = useDatabase(postgresKind);
  let s3: S3Server;
  let bucket: FileStorage;
  let one: FastifyInstance;
  let two: FastifyInstance;
  before(async () => {
    useS3TestCredentials();
    s3 = await startS3Server();
    const settings = {
      filesUrl: `s3://${s3.bucket}/shop${randomBytes(4).toString('hex')}`,
      filesS3Endpoint: s3.endpoint,
      filesS3Region: 'us-east-1',
    };
    // The bucket as the instances see it, to look inside.
    bucket = s3Storage(settings);
    const config = defaultConfig({
      maxEventLoopDelay: 0,
      schemas: OPEN_SHOP_SCHEMAS,
      ...settings,
      databaseUrl: context.db.url,
    });
    one = await buildApp({ config, logStream: false });
    two = await buildApp({ config, logStream: false });
  });
  after(async () => {
    await one?.close();
    await two?.close();
    await bucket?.close();
    await s3?.close();
  });

  it('keeps an upload through one in the bucket, where the other reads it', async () => {
    const picture = await png(40, 30);
    const upload = await multipart({ picture: { name: 'lamp.png', type: 'image/png', bytes: picture } }, { name: 'Lamp' });
    const created = await one.inject({ method: 'POST', url: '/product/', ...upload });
    assert.equal(created.statusCode, 201, created.body);
    const { id, picture: meta } = body<{ id: number; picture: FileMeta }>(created);
    assert.equal(meta.size, picture.length);
    const stored = await bucket.read(fileKey('products', meta.name));
    assert.ok(stored, 'the object is in the bucket');
    assert.deepEqual(await buffer(stored), picture);

    const read = await two.inject({ url: `/product/${id}/` });
    assert.deepEqual(body<{ picture: FileMeta }>(read).picture, meta);
  });
});
