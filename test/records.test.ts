/** SPEC §3 and §4: records, system fields, limits, and the operations' statuses and bodies. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import { body, create, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { CONTRACT_COLLECTIONS } from './helpers/contract-collections.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const kind of STORE_KINDS) {
  for (const { plural, singular, settings } of CONTRACT_COLLECTIONS) {
    describe(`records of ${plural} (${kind.name})`, () => {
      const ctx = useApp(kind, settings, { contract: true });
      const post = (payload: unknown, headers: Record<string, string> = JSON_HEADERS) =>
        ctx.app.inject({
          method: 'POST',
          url: `/${singular}/`,
          headers,
          payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        });
      /** Sends a JSON text to modify record `id` with `method`. */
      const modify = (method: 'PUT' | 'PATCH', id: number) => (payload: string) =>
        ctx.app.inject({ method, url: `/${singular}/${id}/`, headers: JSON_HEADERS, payload });

      it('creates: 201, the record with id first, Location, ETag and JSON content type', async () => {
        const response = await post({ name: 'Ada', tags: ['a', 'b'] });
        assert.equal(response.statusCode, 201);
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
        const record = body(response);
        assert.deepEqual(Object.keys(record), ['id', 'name', 'tags', 'createdAt', 'updatedAt']);
        assert.ok(Number.isInteger(record.id) && (record.id as number) >= 1);
        assert.match(String(record.createdAt), RFC3339_MS);
        assert.equal(record.createdAt, record.updatedAt);
        assert.equal(response.headers.location, `/${singular}/${record.id}/`);
        assert.match(String(response.headers.etag), /^"[^"]+"$/);
      });

      it('round-trips any JSON the client stores, exactly', async () => {
        const fields = {
          text: 'héllo \u0001 \ud83d\ude00 "quoted" \\ / \u2028',
          empty: '',
          int: 42,
          negative: -0.5,
          big: 1e300,
          tiny: 5e-324,
          flag: false,
          nothing: null,
          nested: { deeper: { list: [1, 'two', { three: [null, true] }], emptyObject: {}, emptyList: [] } },
          __proto__field: 'plain',
          ['__proto__']: { polluted: true },
          constructor: { prototype: { polluted: true } },
          'dotted.name': 1,
          'with space/and~tilde': 2,
        };
        const text = `{${Object.entries(fields)
          .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
          .join(',')},"__proto__":{"x":1}}`;
        const response = await post(text);
        assert.equal(response.statusCode, 201, response.body);
        const read = await ctx.app.inject({ url: `/${singular}/${body(response).id}/` });
        const expected = JSON.parse(text) as Record<string, unknown>;
        const got = JSON.parse(read.body) as Record<string, unknown>;
        for (const key of ['id', 'createdAt', 'updatedAt']) delete got[key];
        assert.deepEqual(got, expected);
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
      });

      it('ignores system fields sent by the client, on create and on modify', async () => {
        const made = body(await post({ id: 999999, createdAt: 'yesterday', updatedAt: 'never', name: 'x' }));
        assert.notEqual(made.id, 999999);
        assert.match(String(made.createdAt), RFC3339_MS);
        for (const method of ['PUT', 'PATCH'] as const) {
          // Well-formed times, one in the future, so that only the server can have set what comes back.
          const sent = { id: 5, createdAt: '2000-01-01T00:00:00.000Z', updatedAt: '2999-01-01T00:00:00.000Z' };
          const response = await modify(method, made.id as number)(JSON.stringify({ ...sent, name: method }));
          const changed = body(response);
          assert.equal(changed.id, made.id, method);
          assert.equal(changed.createdAt, made.createdAt, method);
          assert.ok(String(changed.updatedAt) >= String(made.updatedAt), method);
          assert.ok(String(changed.updatedAt) <= new Date().toISOString(), `${method}: ${changed.updatedAt}`);
          assert.equal(changed.name, method);
          assert.deepEqual(Object.keys(changed), ['id', 'name', 'createdAt', 'updatedAt']);
          assert.deepEqual(body(await ctx.app.inject({ url: `/${singular}/${made.id}/` })), changed);
        }
      });

      it('moves updatedAt forward on every modify, PUT and PATCH, and keeps createdAt', async () => {
        const made = await create(ctx.app, singular, { n: 0 });
        let last: Record<string, unknown> = made;
        for (const method of ['PUT', 'PATCH', 'PUT'] as const) {
          await sleep(3); // times have millisecond resolution
          const response = await modify(method, made.id)(JSON.stringify({ n: method }));
          assert.equal(response.statusCode, 200, response.body);
          const changed = body(response);
          assert.equal(changed.createdAt, made.createdAt, method);
          assert.match(String(changed.updatedAt), RFC3339_MS);
          assert.ok(String(changed.updatedAt) > String(last.updatedAt), `${method}: ${changed.updatedAt}`);
          assert.deepEqual(body(await ctx.app.inject({ url: `/${singular}/${made.id}/` })), changed);
          last = changed;
        }
      });

      it('never reuses an id, even after the newest record is deleted', async () => {
        const first = await create(ctx.app, singular, { n: 1 });
        await ctx.app.inject({ method: 'DELETE', url: `/${singular}/${first.id}/` });
        const second = await create(ctx.app, singular, { n: 2 });
        assert.ok(second.id > first.id);
      });

      it('modifies with JSON Merge Patch: replace, remove with null, keep absent, merge nested', async () => {
        const made = await create(ctx.app, singular, {
          keep: 'k',
          replace: 1,
          drop: 'x',
          nested: { a: 1, b: { c: 2 } },
          list: [1, 2],
        });
        const before = await ctx.app.inject({ url: `/${singular}/${made.id}/` });
        const patch = { replace: 2, drop: null, nested: { b: { d: 3 }, e: [4] }, list: [3], added: true };
        for (const method of ['PUT', 'PATCH'] as const) {
          const response = await ctx.app.inject({
            method,
            url: `/${singular}/${made.id}/`,
            headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
            payload: patch,
          });
          assert.equal(response.statusCode, 200, method);
          const record = body(response);
          assert.deepEqual(
            { ...record, id: 0, createdAt: '', updatedAt: '' },
            {
              id: 0,
              keep: 'k',
              replace: 2,
              nested: { a: 1, b: { c: 2, d: 3 }, e: [4] },
              list: [3],
              added: true,
              createdAt: '',
              updatedAt: '',
            },
          );
          assert.notEqual(response.headers.etag, before.headers.etag, 'the ETag changes with the record');
        }
      });

      it('deletes: 200 with the record as it was, or 204 with Prefer: return=minimal', async () => {
        const made = await create(ctx.app, singular, { name: 'gone' });
        const response = await ctx.app.inject({ method: 'DELETE', url: `/${singular}/${made.id}/` });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(body(response), made);
        assert.equal((await ctx.app.inject({ url: `/${singular}/${made.id}/` })).statusCode, 404);

        const other = await create(ctx.app, singular, { name: 'quiet' });
        const minimal = await ctx.app.inject({
          method: 'DELETE',
          url: `/${singular}/${other.id}/`,
          headers: { prefer: 'return=minimal' },
        });
        assert.equal(minimal.statusCode, 204);
        assert.equal(minimal.body, '');
        assert.equal((await ctx.app.inject({ url: `/${singular}/${other.id}/` })).statusCode, 404);
      });

      it('lists as a JSON array in id order, paged with limit and a Link to the next page', async () => {
        const ids: number[] = [];
        for (let i = 0; i < 5; i++) ids.push((await create(ctx.app, singular, { page: i })).id);
        let url: string | undefined = `/${plural}/?limit=2`;
        const seen: number[] = [];
        while (url) {
          const response: LightMyRequestResponse = await ctx.app.inject({ url });
          assert.equal(response.statusCode, 200);
          const page = body<{ id: number }[]>(response);
          assert.ok(page.length <= 2);
          seen.push(...page.map((r) => r.id));
          url = /<([^>]+)>; rel="next"/.exec(String(response.headers.link ?? ''))?.[1];
        }
        assert.deepEqual(
          seen.filter((id) => ids.includes(id)),
          ids,
        );
        assert.deepEqual(
          seen,
          [...seen].sort((a, b) => a - b),
        );
        problem(await ctx.app.inject({ url: `/${plural}/?limit=0` }), 400, 'invalid-query');
        problem(await ctx.app.inject({ url: `/${plural}/?limit=1001` }), 400, 'invalid-query');
        problem(await ctx.app.inject({ url: `/${plural}/?cursor=garbage` }), 400, 'invalid-query');
      });

      it('answers 304 to If-None-Match with the current ETag', async () => {
        const made = await create(ctx.app, singular, { name: 'cached' });
        const first = await ctx.app.inject({ url: `/${singular}/${made.id}/` });
        const again = await ctx.app.inject({
          url: `/${singular}/${made.id}/`,
          headers: { 'if-none-match': String(first.headers.etag) },
        });
        assert.equal(again.statusCode, 304);
        assert.equal(again.body, '');
      });

      it('rejects bodies that are not JSON objects with 400', async () => {
        for (const payload of ['{"a":', '"text"', '42', 'null', 'true', '{"a":1}}', "{'a':1}"]) {
          problem(await post(payload), 400, 'malformed-json');
        }
        // An array is a bulk create (test/bulk-create.test.ts): of records, so not of numbers.
        assert.deepEqual(
          (problem(await post('[1,2]'), 400, 'invalid-record') as { errors?: { pointer: string }[] }).errors?.map(
            (e) => e.pointer,
          ),
          ['/0', '/1'],
        );
        problem(await ctx.app.inject({ method: 'POST', url: `/${singular}/` }), 400, 'malformed-json');
        problem(await post(''), 400, 'malformed-json');
      });

      it('rejects other content types with 415', async () => {
        for (const type of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/xml',
          'multipart/form-data',
        ]) {
          problem(await post('{"a":1}', { 'content-type': type }), 415, 'unsupported-media-type');
        }
        const made = await create(ctx.app, singular, {});
        const put = await ctx.app.inject({
          method: 'PUT',
          url: `/${singular}/${made.id}/`,
          headers: { 'content-type': 'text/plain' },
          payload: '{"a":1}',
        });
        problem(put, 415);
        assert.equal((await post('{"a":1}', { 'content-type': 'application/vnd.api+json' })).statusCode, 201);
        // The range the OpenAPI document lists, sent as it is written (as a client reading the document may).
        assert.equal((await post('{"a":1}', { 'content-type': 'application/*+json' })).statusCode, 201);
        problem(await post('{"a":1}', { 'content-type': 'application/*+xml' }), 415);
        assert.equal((await post('{"a":1}', { 'content-type': 'application/json; charset=utf-8' })).statusCode, 201);
      });

      it('enforces the limits: body size 413, nesting depth 400, field name length 400', async () => {
        problem(await post(JSON.stringify({ big: 'x'.repeat(1024 * 1024) })), 413, 'payload-too-large');

        let deep: unknown = 1;
        for (let i = 0; i < 32; i++) deep = { d: deep };
        assert.equal((await post(JSON.stringify(deep))).statusCode, 201, 'depth 32 is allowed');
        const tooDeep = problem(await post(JSON.stringify({ d: deep })), 400, 'invalid-record');
        assert.match(tooDeep.detail, /32/);
        problem(await post(`${'['.repeat(100000)}${']'.repeat(100000)}`), 400);

        assert.equal((await post({ ['k'.repeat(200)]: 1 })).statusCode, 201, 'a 200-character name is allowed');
        const longName = problem(await post({ nested: { ['k'.repeat(201)]: 1 } }), 400, 'invalid-record');
        assert.equal(longName.errors?.[0]?.pointer, `/nested/${'k'.repeat(201)}`);
        problem(await post('{"n": 1e999}'), 400, 'invalid-record');
      });

      it('refuses U+0000 in a string or field name with 400, on every store alike', async () => {
        const inValue = problem(await post('{"a":{"b":["ok","x\\u0000y"]}}'), 400, 'invalid-record');
        assert.equal(inValue.errors?.[0]?.pointer, '/a/b/1');
        const inName = problem(await post('{"a\\u0000":1}'), 400, 'invalid-record');
        assert.equal(inName.errors?.[0]?.pointer, '/a\u0000');
        assert.equal((await post('{"a":"\\\\u0000 is only text"}')).statusCode, 201, 'an escaped backslash is not NUL');
      });

      it('refuses an integer literal a double cannot keep exactly, on create and on modify (400)', async () => {
        const made = await create(ctx.app, singular, { n: 1 });
        const senders = [post, modify('PUT', made.id), modify('PATCH', made.id)];
        const refused: [string, string][] = [
          ['{"n":9007199254740993}', '/n'],
          ['{"n":12345678901234567890}', '/n'],
          // A double, but written back as 18446744073709552000: another integer to an exact reader.
          ['{"n":18446744073709551616}', '/n'],
          ['{"a":{"b":[1,-9007199254740993]}}', '/a/b/1'],
          ['{"list":[{"deep":[0,12345678901234567890]}],"ok":1e300}', '/list/0/deep/1'],
          // Scanning on past a literal too large for any double (Infinity) must not throw.
          [`{"a":9007199254740993,"b":${'1'.repeat(400)}}`, '/a'],
        ];
        for (const send of senders) {
          for (const [text, pointer] of refused) {
            const refusal = problem(await send(text), 400, 'invalid-record');
            assert.equal(refusal.errors?.[0]?.pointer, pointer, text);
            assert.match(refusal.detail, /cannot be kept exactly.*as a string/, text);
          }
        }
        assert.deepEqual(body(await ctx.app.inject({ url: `/${singular}/${made.id}/` })), made, 'nothing written');
      });

      it('keeps integers beyond 2^53 that a double holds exactly, digit for digit, and exponent forms', async () => {
        const text =
          '{"max":9007199254740992,"neg":-9007199254740994,"e20":100000000000000000000,"big":1e300,' +
          '"fraction":9007199254740993.5,"nested":{"list":[9007199254740992]},"asText":"12345678901234567890"}';
        const made = await post(text);
        assert.equal(made.statusCode, 201, made.body);
        const { id } = body(made);
        const patched = await modify('PATCH', id as number)('{"added":-9007199254740992}');
        assert.equal(patched.statusCode, 200, patched.body);
        const read = await ctx.app.inject({ url: `/${singular}/${id}/` });
        // The digits themselves, as a client reading integers exactly sees them (PostgreSQL adds blanks).
        const digits = ['"max": ?9007199254740992,', '"neg": ?-9007199254740994,', '"e20": ?100000000000000000000,'];
        for (const kept of [...digits, '"list": ?\\[9007199254740992\\]', '"added": ?-9007199254740992,']) {
          assert.match(read.body, new RegExp(kept));
        }
        const got = body(read);
        assert.equal(got.big, 1e300);
        assert.equal(got.fraction, 2 ** 53 + 2, 'a fraction is a double, as in I-JSON: 9007199254740993.5 rounds');
        assert.equal(got.asText, '12345678901234567890');
        // PostgreSQL writes a stored 1e300 back as 10^300 in full: sent back as read, it is
        // the same number, and accepted.
        assert.equal((await modify('PUT', id as number)(read.body)).statusCode, 200, 'the record as read goes back');
        const written = await post(`{"big":1${'0'.repeat(300)},"mid":15${'0'.repeat(24)}}`);
        assert.equal(written.statusCode, 201, written.body);
        assert.deepEqual([body(written).big, body(written).mid], [1e300, 1.5e25]);
      });

      it('leaves the record untouched when a modification is rejected', async () => {
        const made = await create(ctx.app, singular, { name: 'stable' });
        for (const payload of ['[1]', '{"x":', `{"d":${'{"d":'.repeat(40)}1${'}'.repeat(41)}`]) {
          const response = await ctx.app.inject({
            method: 'PUT',
            url: `/${singular}/${made.id}/`,
            headers: JSON_HEADERS,
            payload,
          });
          assert.equal(response.statusCode, 400);
        }
        assert.deepEqual(body(await ctx.app.inject({ url: `/${singular}/${made.id}/` })), made);
      });

      itKeptTheDocument(ctx);
    });
  }
}
