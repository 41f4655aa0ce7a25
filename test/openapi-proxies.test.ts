/**
 * What validating proxies (Prism) and client generators trip on, on both stores and with the
 * example shop's collections: every change feed resumes without Last-Event-ID, a record's id
 * is an integer in the path as the server reads it, HEAD is listed wherever GET is served
 * (and nowhere else), and the words name the collections served, each with its article.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Config } from '../src/config/index.js';
import { body, create, JSON_HEADERS, type TestContext, useApp } from './helpers/app.js';
import { withResponsesFollowed } from './helpers/openapi-responses.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS, sqliteKind, type TestStoreKind } from './helpers/stores.js';

interface Parameter {
  $ref?: string;
  in?: string;
  name?: string;
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: unknown;
  responses: Record<string, { content?: unknown }>;
}
interface Document {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Parameter> };
}

const OVERRIDE_REFS = /#\/components\/parameters\/(HttpXHttpMethod|XHttpMethod|XHttpMethodOverride)$/;

function useDocument(kind: TestStoreKind, overrides: Partial<Config>): TestContext & { doc: Document } {
  const ctx = useApp(kind, overrides, { contract: true }) as TestContext & { doc: Document };
  it('serves its document', async () => {
    const response = await ctx.app.inject({ url: '/openapi.json', headers: { host: 'restock.test' } });
    assert.equal(response.statusCode, 200);
    // Each shared response written out where its `$ref` is: what a proxy checks an answer against.
    ctx.doc = withResponsesFollowed(body<Document>(response));
  });
  return ctx;
}

/** Every operation of the document, as `[method, path, operation]`. */
const operationsOf = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => [method, path, operation] as const),
  );

for (const kind of STORE_KINDS) {
  describe(`the OpenAPI document for proxies and generators (${kind.name})`, () => {
    const ctx = useDocument(kind, {});

    it('lets every change feed operation, tunnelled and HEAD too, resume without Last-Event-ID', async () => {
      const feeds = operationsOf(ctx.doc).filter(([, path]) => path.endsWith('/events/'));
      assert.deepEqual(feeds.map(([method, path]) => `${method} ${path}`).sort(), [
        ...['get /products/events/', 'get /users/events/', 'head /products/events/', 'head /users/events/'],
        ...['post /products/events/', 'post /users/events/'],
      ]);
      for (const [method, path, operation] of feeds) {
        const header = operation.parameters?.find((p) => p.in === 'header' && p.name === 'Last-Event-ID');
        assert.equal(header?.required, false, `${method} ${path}`);
      }
      // A feed without it starts at the next change: HEAD answers at once, as the document says.
      const response = await ctx.app.inject({ method: 'HEAD', url: '/users/events/' });
      assert.equal(response.statusCode, 200);
      assert.ok(ctx.contract?.matched.includes('followUserChangesHead 200'));
    });

    it("types a record's id in the path as the integer the server reads, and nothing else", async () => {
      const items = operationsOf(ctx.doc).filter(([, path]) => path.includes('{id}'));
      const ofRecords = items.filter(([, path]) => !path.startsWith('/webhook/'));
      assert.equal(ofRecords.length, 2 * 6, 'get, put, patch, delete, head and the tunnelled post, per collection');
      for (const [method, path, operation] of items) {
        const id = operation.parameters?.find((p) => p.in === 'path' && p.name === 'id');
        assert.deepEqual(
          [id?.required, id?.schema?.type, id?.schema?.minimum, id?.schema?.maximum],
          [true, 'integer', 1, Number.MAX_SAFE_INTEGER],
          `${method} ${path}`,
        );
      }
      // The server reads the decimal form alone: a leading zero, a sign, a fraction or an
      // exponent, zero, or past 2^53 - 1 names no record (404), never a malformed request.
      const made = await create(ctx.app, 'user', { name: 'Ada' });
      assert.equal((await ctx.app.inject({ url: `/user/${made.id}/` })).statusCode, 200);
      for (const id of [`0${made.id}`, `+${made.id}`, `${made.id}.0`, `${made.id}e0`, '0', '9007199254740992']) {
        assert.equal((await ctx.app.inject({ url: `/user/${id}/` })).statusCode, 404, id);
      }
    });

    it('lists HEAD beside every GET the server serves, without a body or an override header', async () => {
      const gets = operationsOf(ctx.doc).filter(([method]) => method === 'get');
      for (const [, path, get] of gets) {
        const head = ctx.doc.paths[path]?.head;
        // A GET whose override header is required is a tunnelled form: no GET route, so no HEAD.
        const tunnelled = get.parameters?.some((p) => p.$ref?.includes('HttpXHttpMethodFor'));
        if (tunnelled) {
          assert.equal(head, undefined, path);
          assert.equal((await ctx.app.inject({ method: 'HEAD', url: path })).statusCode, 405, path);
          continue;
        }
        assert.equal(head?.operationId, `${get.operationId}Head`, path);
        assert.equal(head?.requestBody, undefined, path);
        assert.ok(!head?.parameters?.some((p) => OVERRIDE_REFS.test(p.$ref ?? '')), `${path}: no override header`);
        for (const [status, response] of Object.entries(head?.responses ?? {})) {
          assert.equal(response.content, undefined, `${path} ${status}`);
        }
      }
      const heads = ['/', '/healthz', '/readyz', '/openapi.json', '/problems/not-found', '/users/', '/products/'];
      for (const url of heads) assert.equal((await ctx.app.inject({ method: 'HEAD', url })).statusCode, 200, url);
      // HEAD carries no override header: the server refuses it, as the document (which lists none) does.
      const carried = await ctx.app.inject({ method: 'HEAD', url: '/users/', headers: { 'x-http-method': 'DELETE' } });
      assert.equal(carried.statusCode, 400);
    });

    it('takes an array at either create path, and one record at either', async () => {
      const send = (url: string, payload: object) =>
        ctx.app.inject({ method: 'POST', url, headers: JSON_HEADERS, payload });
      for (const url of ['/user/', '/users/']) {
        assert.equal((await send(url, [{ n: 1 }, { n: 2 }])).statusCode, 201, url);
        assert.equal((await send(url, { n: 3 })).statusCode, 201, url);
      }
      const matched = ctx.contract?.matched ?? [];
      assert.equal(matched.filter((exchange) => exchange === 'bulkCreateUsers 201').length, 2);
      assert.ok(matched.filter((exchange) => exchange === 'createUser 201').length >= 2);
    });

    it('names the collections served, each with its article', () => {
      assert.match(ctx.doc.info.description, /^Users and products over REST/);
      const summaries = operationsOf(ctx.doc).map(([, , operation]) => operation.summary ?? '');
      assert.ok(summaries.includes('Create a user'));
      assert.ok(summaries.includes('Create several products at once'));
    });

    itKeptTheDocument(ctx);
  });
}

describe('the OpenAPI document of the example shop, for proxies and generators', () => {
  const ctx = useDocument(sqliteKind, { schemas: 'schemas/shop' });

  it('names orders, products and users, and an order with "an"', () => {
    const { doc } = ctx;
    assert.match(doc.info.description, /^Orders, products and users over REST/);
    const summaries = operationsOf(doc).map(([, , operation]) => operation.summary ?? '');
    for (const summary of ['Create an order', 'Modify an order', 'Delete an order', 'Create a product']) {
      assert.ok(summaries.includes(summary), summary);
    }
    assert.ok(summaries.includes('GET, PUT, PATCH or DELETE an order, tunnelled through POST'));
    assert.doesNotMatch(JSON.stringify(doc), /\ba order/i);
  });

  it('lets the feeds of declared collections resume without Last-Event-ID too', () => {
    const feeds = operationsOf(ctx.doc).filter(([, path]) => path.endsWith('/events/'));
    assert.equal(feeds.length, 3 * 3);
    for (const [method, path, operation] of feeds) {
      const header = operation.parameters?.find((p) => p.in === 'header' && p.name === 'Last-Event-ID');
      assert.equal(header?.required, false, `${method} ${path}`);
    }
  });
});
