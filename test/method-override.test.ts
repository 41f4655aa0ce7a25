/** SPEC §5: the method override, every row, from both wire methods and all three header names. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOverrideSetting } from '../src/config/index.js';
import { body, create, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';

const HEADER_NAMES = ['HTTP-X-HTTP-METHOD', 'x-http-method', 'X-Http-Method-Override'];
const VARY = 'HTTP-X-HTTP-METHOD, X-HTTP-Method, X-HTTP-Method-Override';

for (const kind of STORE_KINDS) {
  describe(`method override, default get,post (${kind.name})`, () => {
    const ctx = useApp(kind, {}, { contract: true });

    for (const header of HEADER_NAMES) {
      for (const wire of ['POST', 'GET'] as const) {
        it(`tunnels PUT, PATCH and DELETE through ${wire} with ${header}`, async () => {
          for (const singular of ['user', 'product']) {
            const made = await create(ctx.app, singular, { a: 1, b: 1 });
            const put = await ctx.app.inject({
              method: wire,
              url: `/${singular}/${made.id}/`,
              headers: { ...JSON_HEADERS, [header]: 'PUT' },
              payload: { b: 2 },
            });
            assert.equal(put.statusCode, 200, put.body);
            assert.deepEqual([body(put).a, body(put).b], [1, 2]);
            assert.equal(put.headers['cache-control'], 'no-store');

            const patch = await ctx.app.inject({
              method: wire,
              url: `/${singular}/${made.id}`,
              headers: { ...JSON_HEADERS, [header]: ' patch ' },
              payload: { c: 3 },
            });
            assert.equal(body(patch).c, 3);

            const del = await ctx.app.inject({
              method: wire,
              url: `/${singular}/${made.id}/`,
              headers: { [header]: 'Delete' },
            });
            assert.equal(del.statusCode, 200);
            assert.equal(del.headers['cache-control'], 'no-store');
            assert.equal((await ctx.app.inject({ url: `/${singular}/${made.id}/` })).statusCode, 404);
          }
        });
      }
    }

    it('tunnels a PATCH sent as application/merge-patch+json, merging it', async () => {
      for (const singular of ['user', 'product']) {
        const made = await create(ctx.app, singular, { keep: 'k', drop: 'x', nested: { a: 1, b: 2 } });
        const response = await ctx.app.inject({
          method: 'POST',
          url: `/${singular}/${made.id}/`,
          headers: { 'content-type': 'application/merge-patch+json', 'HTTP-X-HTTP-METHOD': 'PATCH' },
          payload: { drop: null, nested: { b: null, c: 3 }, added: true },
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['cache-control'], 'no-store');
        const merged = body(response);
        const { id, createdAt } = made;
        assert.deepEqual(
          { ...merged, updatedAt: '' },
          { id, keep: 'k', nested: { a: 1, c: 3 }, added: true, createdAt, updatedAt: '' },
          'null removes a field, absent ones stay, nested objects merge',
        );
        assert.deepEqual(body(await ctx.app.inject({ url: `/${singular}/${made.id}/` })), merged);
      }
    });

    it('routes by the effective method: POST carrying GET reads, GET carrying POST creates', async () => {
      const made = await create(ctx.app, 'user', { name: 'read me' });
      const read = await ctx.app.inject({
        method: 'POST',
        url: `/user/${made.id}/`,
        headers: { 'HTTP-X-HTTP-METHOD': 'GET' },
      });
      assert.equal(read.statusCode, 200);
      assert.equal(body(read).name, 'read me');

      const created = await ctx.app.inject({
        method: 'GET',
        url: '/user/',
        headers: { ...JSON_HEADERS, 'HTTP-X-HTTP-METHOD': 'POST' },
        payload: { name: 'made by GET' },
      });
      assert.equal(created.statusCode, 201);
      assert.equal(created.headers.location, `/user/${body(created).id}/`);

      const list = await ctx.app.inject({ method: 'POST', url: '/products/', headers: { 'x-http-method': 'GET' } });
      assert.equal(list.statusCode, 200);
      assert.ok(Array.isArray(body(list)));
    });

    it('answers 405 by the effective method', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/user/',
        headers: { 'HTTP-X-HTTP-METHOD': 'GET' },
      });
      problem(response, 405, 'method-not-allowed');
      assert.equal(response.headers.allow, 'POST, OPTIONS');
      const put = await ctx.app.inject({ method: 'POST', url: '/users/', headers: { 'HTTP-X-HTTP-METHOD': 'PUT' } });
      problem(put, 405);
    });

    it('validates and parses the body as the effective method would', async () => {
      const made = await create(ctx.app, 'user', { a: 1 });
      const bad = await ctx.app.inject({
        method: 'POST',
        url: `/user/${made.id}/`,
        headers: { ...JSON_HEADERS, 'HTTP-X-HTTP-METHOD': 'PUT' },
        payload: '[1,2]',
      });
      problem(bad, 400, 'malformed-json');
      const wrongType = await ctx.app.inject({
        method: 'POST',
        url: `/user/${made.id}/`,
        headers: { 'content-type': 'text/plain', 'HTTP-X-HTTP-METHOD': 'PUT' },
        payload: 'a=1',
      });
      problem(wrongType, 415);
    });

    it('accepts the same value in several headers, and refuses disagreeing ones', async () => {
      const made = await create(ctx.app, 'user', { a: 1 });
      const agree = await ctx.app.inject({
        method: 'POST',
        url: `/user/${made.id}/`,
        headers: { 'HTTP-X-HTTP-METHOD': 'DELETE', 'X-HTTP-Method': 'delete', 'X-HTTP-Method-Override': ' DELETE' },
      });
      assert.equal(agree.statusCode, 200);

      const other = await create(ctx.app, 'user', { a: 1 });
      const disagree = await ctx.app.inject({
        method: 'POST',
        url: `/user/${other.id}/`,
        headers: { 'HTTP-X-HTTP-METHOD': 'DELETE', 'X-HTTP-Method-Override': 'PUT' },
      });
      const parsed = problem(disagree, 400, 'invalid-method-override');
      assert.match(parsed.detail, /disagree/);
      const twice = await ctx.app.inject({
        method: 'POST',
        url: `/user/${other.id}/`,
        headers: { 'HTTP-X-HTTP-METHOD': 'DELETE, PUT' },
      });
      problem(twice, 400, 'invalid-method-override');
      assert.equal((await ctx.app.inject({ url: `/user/${other.id}/` })).statusCode, 200, 'nothing was deleted');
    });

    it('refuses unknown values with a detail naming the accepted ones', async () => {
      for (const value of ['FOO', '', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'PUTT', 'P UT']) {
        const response = await ctx.app.inject({
          method: 'POST',
          url: '/user/1/',
          headers: { 'HTTP-X-HTTP-METHOD': value },
        });
        const parsed = problem(response, 400, 'invalid-method-override');
        assert.match(parsed.detail, /GET, POST, PUT, DELETE, PATCH/, value);
      }
    });

    it('refuses the header on any wire method but GET and POST', async () => {
      const made = await create(ctx.app, 'user', { a: 1 });
      for (const method of ['PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const) {
        const response = await ctx.app.inject({
          method,
          url: `/user/${made.id}/`,
          headers: { ...JSON_HEADERS, 'X-HTTP-Method-Override': 'GET' },
          payload: method === 'HEAD' ? undefined : '{}',
        });
        assert.equal(response.statusCode, 400, method);
        if (method !== 'HEAD') problem(response, 400, 'invalid-method-override');
      }
      assert.equal((await ctx.app.inject({ url: `/user/${made.id}/` })).statusCode, 200);
    });

    it('marks every GET response as varying on the override headers, and only tunnelled ones no-store', async () => {
      const direct = await ctx.app.inject({ url: '/users/' });
      assert.match(String(direct.headers.vary), new RegExp(VARY));
      assert.equal(direct.headers['cache-control'], undefined);
      const missing = await ctx.app.inject({ url: '/user/999999/' });
      assert.match(String(missing.headers.vary), new RegExp(VARY));
      const post = await ctx.app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: {} });
      assert.equal(post.headers['cache-control'], undefined);
      const tunnelledRead = await ctx.app.inject({ url: '/users/', headers: { 'x-http-method': 'GET' } });
      assert.equal(tunnelledRead.headers['cache-control'], 'no-store');
      const refused = await ctx.app.inject({ url: '/users/', headers: { 'x-http-method': 'FOO' } });
      assert.equal(refused.statusCode, 400);
      assert.match(String(refused.headers.vary), new RegExp(VARY), 'a refused GET varies too');
    });

    it('lets CORS preflights carry the three header names', async () => {
      const response = await ctx.app.inject({
        method: 'OPTIONS',
        url: '/user/1/',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, http-x-http-method',
        },
      });
      assert.equal(response.statusCode, 204);
      const allowed = String(response.headers['access-control-allow-headers']).toLowerCase();
      for (const name of HEADER_NAMES) assert.ok(allowed.includes(name.toLowerCase()), name);
      assert.match(String(response.headers['access-control-allow-methods']), /DELETE/);
    });

    itKeptTheDocument(ctx);
  });

  describe(`method override set to post (${kind.name})`, () => {
    const ctx = useApp(kind, { methodOverride: new Set(['POST']) }, { contract: true });

    it('tunnels through POST but refuses GET, and GET responses do not vary on the headers', async () => {
      const made = await create(ctx.app, 'product', { sku: 'A' });
      const viaGet = await ctx.app.inject({ url: `/product/${made.id}/`, headers: { 'HTTP-X-HTTP-METHOD': 'DELETE' } });
      problem(viaGet, 400, 'invalid-method-override');
      assert.equal(String(viaGet.headers.vary ?? '').includes('HTTP-X-HTTP-METHOD'), false);
      const viaPost = await ctx.app.inject({
        method: 'POST',
        url: `/product/${made.id}/`,
        headers: { 'HTTP-X-HTTP-METHOD': 'DELETE' },
      });
      assert.equal(viaPost.statusCode, 200);
    });

    itKeptTheDocument(ctx);
  });

  describe(`method override off (${kind.name})`, () => {
    const ctx = useApp(kind, { methodOverride: new Set() }, { contract: true });

    it('refuses the header on every wire method', async () => {
      const made = await create(ctx.app, 'user', { a: 1 });
      for (const method of ['GET', 'POST'] as const) {
        const response = await ctx.app.inject({
          method,
          url: `/user/${made.id}/`,
          headers: { 'HTTP-X-HTTP-METHOD': 'DELETE' },
        });
        assert.match(problem(response, 400, 'invalid-method-override').detail, /turned off/);
      }
      assert.equal((await ctx.app.inject({ url: `/user/${made.id}/` })).statusCode, 200);
    });

    itKeptTheDocument(ctx);
  });
}

describe('METHOD_OVERRIDE setting', () => {
  it('reads get,post, post and off, and nothing else', () => {
    assert.deepEqual([...(parseOverrideSetting('get,post') ?? [])], ['GET', 'POST']);
    assert.deepEqual([...(parseOverrideSetting(' POST ') ?? [])], ['POST']);
    assert.deepEqual([...(parseOverrideSetting('off') ?? ['x'])], []);
    assert.equal(parseOverrideSetting('put'), undefined);
    assert.equal(parseOverrideSetting(''), undefined);
  });
});
