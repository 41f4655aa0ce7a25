/**
 * Files in the OpenAPI document of the shop: a file field's components show the metadata a
 * record holds (one object, or an array of at most maxFiles), a merge patch takes null for a
 * field and for an array's element, and the creates and merges of a collection with file
 * fields (tunnelled ones too) take multipart/form-data: a `record` part read as JSON and a
 * binary part per file field. Collections without file fields take JSON only. (Real uploads
 * are checked against the document in test/client-files.test.ts.)
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { withKeys } from './helpers/keys.js';

const SHOP = join(fileURLToPath(new URL('..', import.meta.url)), 'schemas/shop');

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; anyOf?: Schema[]; items?: Schema };
interface Media {
  schema: Schema;
  encoding?: Record<string, { contentType: string }>;
}
interface Document {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, Media> }; responses: object }>>;
  components: { schemas: Record<string, Schema> };
}

const META = ['name', 'type', 'size', 'sha256'];

describe('files in the OpenAPI document', () => {
  let app: FastifyInstance;
  let document: Document;
  before(async () => {
    const config = defaultConfig({
      ...withKeys({ schemas: SHOP }),
      databaseUrl: 'sqlite::memory:',
      maxEventLoopDelay: 0,
    });
    app = await buildApp({ config, logStream: false });
    document = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as Document;
  });
  after(() => app?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  it("shows a file field as the metadata a record holds of its files, and a patch's null", () => {
    const { Product, ProductPatch, Order, OrderPatch } = document.components.schemas;
    const picture = Product?.properties?.picture as Schema;
    assert.equal(picture.type, 'object');
    assert.deepEqual(picture.required, META);
    const attachments = Order?.properties?.attachments as Schema;
    assert.deepEqual([attachments.type, attachments.maxItems, attachments.items?.required], ['array', 3, META]);
    const types = (schemas: Schema[] | undefined) => schemas?.map((schema) => schema.type);
    assert.deepEqual(types(ProductPatch?.properties?.picture?.anyOf), ['object', 'string', 'null'], 'kept by name');
    const kept = OrderPatch?.properties?.attachments?.anyOf?.[0] as Schema;
    assert.deepEqual(
      types(kept.items?.anyOf),
      ['object', 'string', 'null'],
      'an element set to null removes that file',
    );
  });

  it('takes multipart/form-data on the creates and merges of collections with file fields', () => {
    const bodies = (path: string, method: string) => document.paths[path]?.[method]?.requestBody?.content ?? {};
    for (const [path, method, record] of [
      ['/product/', 'post', 'ProductFields'],
      ['/product/{id}/', 'put', 'ProductPatch'],
      ['/product/{id}/', 'patch', 'ProductPatch'],
      ['/product/{id}/', 'post', 'ProductPatch'],
    ] as const) {
      const multipart = bodies(path, method)['multipart/form-data'];
      assert.ok(multipart, `${method} ${path}`);
      assert.equal(multipart.schema.properties?.record?.$ref, `#/components/schemas/${record}`);
      assert.deepEqual(
        { type: multipart.schema.properties?.picture?.type, format: multipart.schema.properties?.picture?.format },
        { type: 'string', format: 'binary' },
      );
      assert.deepEqual(multipart.encoding, {
        record: { contentType: 'application/json' },
        picture: { contentType: 'image/png, image/jpeg, image/webp' },
      });
    }
    const attachments = bodies('/order/', 'post')['multipart/form-data']?.schema.properties?.attachments;
    assert.deepEqual([attachments?.type, attachments?.maxItems, attachments?.items?.format], ['array', 3, 'binary']);
    assert.equal(bodies('/user/', 'post')['multipart/form-data'], undefined, 'users hold no files');
    assert.equal(bodies('/products/', 'post')['multipart/form-data'], undefined, 'a bulk create is JSON');
  });

  it("lists the uploads' refusals on the writes of collections with file fields only", () => {
    const described = (path: string, method: string) => JSON.stringify(document.paths[path]?.[method]?.responses);
    // Shared responses are named by the kinds they stand for (test/openapi-shared-responses.test.ts).
    for (const kind of ['FileTooLarge', 'FileTypeRefused', 'TooManyFiles', 'FileNotUploaded', 'IncompleteUpload']) {
      assert.match(described('/product/', 'post'), new RegExp(kind));
      assert.match(described('/order/{id}/', 'put'), new RegExp(kind));
      assert.doesNotMatch(described('/user/', 'post'), new RegExp(kind));
    }
  });
});
