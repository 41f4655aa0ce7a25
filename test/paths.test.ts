/** SPEC §2: canonical paths, accepted aliases, HEAD, OPTIONS, 405 and 404, for both collections. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { body, create, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { CONTRACT_COLLECTIONS } from './helpers/contract-collections.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';

for (const kind of STORE_KINDS) {
  for (const { plural, singular, settings } of CONTRACT_COLLECTIONS) {
    describe(`paths of ${plural} (${kind.name})`, () => {
      const ctx = useApp(kind, settings, { contract: true });

      it('serves the canonical paths', async () => {
        const made = await create(ctx.app, singular, { name: 'canonical' });
        const list = await ctx.app.inject({ url: `/${plural}/` });
        assert.equal(list.statusCode, 200);
        assert.ok(body<unknown[]>(list).some((r) => (r as { id: number }).id === made.id));
        const one = await ctx.app.inject({ url: `/${singular}/${made.id}/` });
        assert.equal(one.statusCode, 200);
        assert.equal(body(one).name, 'canonical');
      });

      it('answers every alias exactly like the canonical path, without redirecting', async () => {
        const made = await create(ctx.app, singular, { name: 'alias' });
        const canonical = await ctx.app.inject({ url: `/${singular}/${made.id}/` });
        for (const url of [`/${singular}/${made.id}`, `/${plural}/${made.id}/`, `/${plural}/${made.id}`]) {
          const response = await ctx.app.inject({ url });
          assert.equal(response.statusCode, 200, url);
          assert.equal(response.body, canonical.body, url);
        }
        assert.equal((await ctx.app.inject({ url: `/${plural}` })).statusCode, 200);
        for (const url of [`/${plural}/`, `/${plural}`, `/${singular}`]) {
          const response = await ctx.app.inject({ method: 'POST', url, headers: JSON_HEADERS, payload: { via: url } });
          assert.equal(response.statusCode, 201, url);
          const id = body(response).id;
          assert.equal(response.headers.location, `/${singular}/${id}/`, 'Location is always canonical');
        }
      });

      it('modifies and deletes through the plural alias', async () => {
        const made = await create(ctx.app, singular, { a: 1 });
        const put = await ctx.app.inject({
          method: 'PUT',
          url: `/${plural}/${made.id}`,
          headers: JSON_HEADERS,
          payload: { b: 2 },
        });
        assert.equal(put.statusCode, 200);
        assert.deepEqual([body(put).a, body(put).b], [1, 2]);
        const del = await ctx.app.inject({ method: 'DELETE', url: `/${plural}/${made.id}/` });
        assert.equal(del.statusCode, 200);
        assert.equal((await ctx.app.inject({ url: `/${singular}/${made.id}/` })).statusCode, 404);
      });

      it('answers HEAD wherever GET works, with headers and no body', async () => {
        const made = await create(ctx.app, singular, { name: 'head' });
        const get = await ctx.app.inject({ url: `/${singular}/${made.id}/` });
        const head = await ctx.app.inject({ method: 'HEAD', url: `/${singular}/${made.id}/` });
        assert.equal(head.statusCode, 200);
        assert.equal(head.body, '');
        assert.equal(head.headers.etag, get.headers.etag);
        assert.equal((await ctx.app.inject({ method: 'HEAD', url: `/${plural}/` })).statusCode, 200);
      });

      it('answers OPTIONS with Allow on every path', async () => {
        const cases = {
          [`/${plural}/`]: 'GET, HEAD, POST, OPTIONS',
          [`/${singular}/`]: 'POST, OPTIONS',
          [`/${singular}/1/`]: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS',
          [`/${plural}/1/`]: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS',
        };
        for (const [url, allow] of Object.entries(cases)) {
          const response = await ctx.app.inject({ method: 'OPTIONS', url });
          assert.equal(response.statusCode, 204, url);
          assert.equal(response.headers.allow, allow, url);
        }
      });

      it('answers 405 with Allow for a method the path does not take', async () => {
        const cases: [string, string, string][] = [
          ['POST', `/${singular}/7/`, 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
          ['GET', `/${singular}/`, 'POST, OPTIONS'],
          ['HEAD', `/${singular}/`, 'POST, OPTIONS'],
          ['DELETE', `/${singular}/`, 'POST, OPTIONS'],
          ['PUT', `/${plural}/`, 'GET, HEAD, POST, OPTIONS'],
          ['DELETE', `/${plural}/`, 'GET, HEAD, POST, OPTIONS'],
          ['PATCH', `/${plural}`, 'GET, HEAD, POST, OPTIONS'],
          // A method no path takes is refused on a known path as any other is, not as an unknown route.
          ['TRACE', `/${plural}/`, 'GET, HEAD, POST, OPTIONS'],
          ['TRACE', `/${singular}/7/`, 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
        ];
        for (const [method, url, allow] of cases) {
          const response = await ctx.app.inject({ method: method as 'GET', url });
          assert.equal(response.statusCode, 405, `${method} ${url}`);
          assert.equal(response.headers.allow, allow, `${method} ${url}`);
          if (method !== 'HEAD') problem(response, 405, 'method-not-allowed');
        }
      });

      it('answers 404 for a path id that is not a positive integer, and for a missing record', async () => {
        for (const id of ['0', '-1', 'abc', '1.5', '1e3', '01', '99999999999999999999', '%20']) {
          const response = await ctx.app.inject({ url: `/${singular}/${id}/` });
          problem(response, 404, 'not-found');
        }
        problem(await ctx.app.inject({ url: `/${singular}/987654/` }), 404, 'not-found');
        problem(
          await ctx.app.inject({ method: 'PUT', url: `/${singular}/987654/`, headers: JSON_HEADERS, payload: {} }),
          404,
        );
        problem(await ctx.app.inject({ method: 'DELETE', url: `/${singular}/987654/` }), 404);
      });

      itKeptTheDocument(ctx);
    });
  }

  describe(`unknown paths (${kind.name})`, () => {
    const ctx = useApp(kind, {}, { contract: true });
    it('answers 404 problem for anything that is not a known path', async () => {
      for (const url of ['/nope', '/users/1/extra', '/userz/', '/user/1/2/', '//users/', '/USERS/', '/problems/zzz']) {
        const response = await ctx.app.inject({ url });
        const parsed = problem(response, 404, 'not-found');
        assert.equal(parsed.instance, url.split('?')[0]);
      }
    });

    itKeptTheDocument(ctx);
  });
}
