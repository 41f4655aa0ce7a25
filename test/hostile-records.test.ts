/**
 * Records at the edges an outside review found: ids at 2^53, lone surrogates, records grown
 * past the body limit by merges, huge import lines, costly merges and huge pages. Each
 * refusal is a problem document (or a line-numbered import error) and changes nothing.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { DEFAULT_COLLECTIONS } from '../src/core/default-collections.js';
import { readPage } from '../src/records/list-page.js';
import { mergePatch } from '../src/store/merge-patch.js';
import { openStore } from '../src/store/open-store.js';
import type { ListQuery, Records, StoredRecord } from '../src/store/store.js';
import { body, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { catalogOf } from './helpers/catalog.js';
import { cli } from './helpers/cli.js';
import { CHUNK, hugeRecord } from './helpers/huge-input.js';
import { STORE_KINDS } from './helpers/stores.js';

const MAX_ID = Number.MAX_SAFE_INTEGER;

for (const kind of STORE_KINDS) {
  describe(`ids stop at 2^53 - 1 (${kind.name})`, () => {
    const ctx = useApp(kind);
    const { plural, singular } = DEFAULT_COLLECTIONS[0] as (typeof DEFAULT_COLLECTIONS)[number];
    const list = async () => body<{ id: number }[]>(await ctx.app.inject({ url: `/${plural}/?limit=1000` }));

    it('refuses an id above 2^53 - 1 on import, naming the line, and writes nothing of its batch', async () => {
      const file = `{"id": 5, "name": "ok"}\n{"id": ${MAX_ID + 1}, "name": "too far"}\n`;
      const result = await cli(ctx.db.url, ['import', '-', '-c', plural], file);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /line 2: id must be an integer from 1 to 9007199254740991/);
      assert.deepEqual(await list(), []);
    });

    it('hands out no id past 2^53 - 1: creates get 507 and write nothing', async () => {
      const imported = await cli(ctx.db.url, ['import', '-', '-c', plural], `{"id": ${MAX_ID}, "name": "last"}\n`);
      assert.equal(imported.code, 0, imported.stderr);
      for (let i = 0; i < 2; i++) {
        const response = await ctx.app.inject({
          method: 'POST',
          url: `/${singular}/`,
          headers: JSON_HEADERS,
          payload: { name: `after ${i}` },
        });
        const refused = problem(response, 507, 'ids-exhausted');
        assert.equal(response.headers.location, undefined);
        assert.match(refused.detail, /nothing was written/);
      }
      // An import without ids (one batch of new records) fails the same way, all of it.
      const more = await cli(ctx.db.url, ['import', '-', '-c', plural], '{"name": "a"}\n{"name": "b"}\n');
      assert.equal(more.code, 1);
      assert.match(more.stderr, /every id up to 9007199254740991/);
      assert.deepEqual(
        (await list()).map((r) => r.id),
        [MAX_ID],
      );
      const last = await ctx.app.inject({ url: `/${singular}/${MAX_ID}/` });
      assert.equal(last.statusCode, 200);
      assert.equal(body(last).id, MAX_ID);
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`lone surrogates are refused (${kind.name})`, () => {
    const ctx = useApp(kind);
    const { plural, singular } = DEFAULT_COLLECTIONS[0] as (typeof DEFAULT_COLLECTIONS)[number];
    const send = (method: string, url: string, payload: string) =>
      ctx.app.inject({ method, url, headers: JSON_HEADERS, payload });
    const all = async () => (await ctx.app.inject({ url: `/${plural}/?limit=1000` })).body;
    // JSON texts: the escapes stay escapes until the server parses them.
    const LONE = [
      ['{"a":"\\ud800"}', '/a'],
      ['{"a":"x\\udc00y"}', '/a'],
      ['{"a":"\\ude00\\ud83d"}', '/a'],
      ['{"n":{"list":["ok","\\uD83D"]}}', '/n/list/1'],
      ['{"\\udc00key":1}', '/\udc00key'],
      ['{"n":{"a/b\\ud800":true}}', '/n/a~1b\ud800'],
    ] as const;

    it('refuses them in values and field names with 400 naming the pointer; a pair is text', async () => {
      const made = await send('POST', `/${singular}/`, '{"e":"\\ud83d\\ude00","f":"\\uD83D\\uDE00"}');
      assert.equal(made.statusCode, 201, made.body);
      assert.equal(body(made).e, '\u{1F600}');
      const id = body(made).id as number;
      const before = await all();
      for (const [payload, pointer] of LONE) {
        for (const [method, url] of [
          ['POST', `/${singular}/`],
          ['PUT', `/${singular}/${id}/`],
          ['PATCH', `/${singular}/${id}/`],
        ] as const) {
          const refused = problem(await send(method, url, payload), 400, 'invalid-record');
          assert.equal(refused.errors?.[0]?.pointer, pointer, `${method} ${payload}`);
          assert.match(refused.errors?.[0]?.message ?? '', /lone surrogate/);
        }
      }
      assert.equal(await all(), before, 'nothing changed');
    });

    it('refuses them on import, naming the line, and writes nothing of the batch', async () => {
      const before = await all();
      const result = await cli(ctx.db.url, ['import', '-', '-c', plural], '{"a":"fine"}\n{"b":"\\ud800"}\n');
      assert.equal(result.code, 1);
      assert.match(result.stderr, /line 2: \/b: contains a lone surrogate/);
      assert.equal(await all(), before);
    });

    it('restock check reports those a database already holds', async () => {
      const store = await openStore(ctx.db.url, catalogOf(['users', 'products']));
      try {
        const write = store.collection(plural).create('{"ok":"\\ud83d\\ude00","bad":["\\udfff"]}');
        if (kind.name === 'postgres') {
          // PostgreSQL cannot hold one: the check has nothing to find there.
          await assert.rejects(write);
          const clean = await cli(ctx.db.url, ['check']);
          assert.equal(clean.code, 0, clean.stdout);
          assert.match(clean.stderr, /0 hold a lone surrogate/);
          return;
        }
        const { id } = await write;
        const result = await cli(ctx.db.url, ['check']);
        assert.equal(result.code, 1);
        assert.match(result.stdout, new RegExp(`^${plural}/${id} /bad/0: contains a lone surrogate`, 'm'));
        assert.match(result.stderr, /1 hold a lone surrogate/);
      } finally {
        await store.close();
      }
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`bytes that are not UTF-8 are refused, never replaced (${kind.name})`, () => {
    const ctx = useApp(kind);
    const { plural, singular } = DEFAULT_COLLECTIONS[0] as (typeof DEFAULT_COLLECTIONS)[number];
    const all = async () => (await ctx.app.inject({ url: `/${plural}/?limit=1000` })).body;
    // {"name":"caf?"} with a Latin-1 é (0xE9) at byte 12; then a sequence cut short at the end.
    const LATIN1 = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const CUT = Buffer.concat([Buffer.from('{"name":"x'), Buffer.from([0xe2, 0x82])]);

    it('answers 400 naming the byte, and writes nothing', async () => {
      const made = await ctx.app.inject({ method: 'POST', url: `/${singular}/`, payload: { name: 'café €' } });
      assert.equal(made.statusCode, 201, made.body);
      const before = await all();
      for (const [payload, at] of [
        [LATIN1, 'byte 12 (0xe9)'],
        [CUT, 'byte 10 (0xe2)'],
      ] as const) {
        for (const [method, url] of [
          ['POST', `/${singular}/`],
          ['PUT', `/${singular}/${body(made).id}/`],
        ] as const) {
          const refused = problem(
            await ctx.app.inject({ method, url, headers: JSON_HEADERS, payload }),
            400,
            'malformed-json',
          );
          assert.match(
            refused.detail ?? '',
            new RegExp(`not UTF-8 text: it goes wrong at ${at.replace(/[()]/g, '\\$&')}`),
          );
        }
      }
      assert.equal(await all(), before, 'nothing changed');
    });

    it('stops an import at the line and byte, and writes nothing of the batch', async () => {
      const before = await all();
      const input = Buffer.concat([Buffer.from('{"name":"fine €"}\n'), LATIN1, Buffer.from('\n')]);
      const result = await cli(ctx.db.url, ['import', '-', '-c', plural], Readable.from([input]));
      assert.equal(result.code, 1);
      assert.match(result.stderr, /line 2: the input is not UTF-8 text: it goes wrong at byte 32/);
      assert.equal(await all(), before);
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`records stay within MAX_RECORD_BYTES (${kind.name})`, () => {
    // MAX_RECORD_BYTES follows BODY_LIMIT unless set: both 4096 here.
    const LIMIT = 4096;
    const ctx = useApp(kind, { bodyLimit: LIMIT });
    const { plural, singular } = DEFAULT_COLLECTIONS[1] as (typeof DEFAULT_COLLECTIONS)[number];
    const send = (method: string, url: string, payload: unknown, headers: Record<string, string> = {}) =>
      ctx.app.inject({ method, url, headers: { ...JSON_HEADERS, ...headers }, payload: JSON.stringify(payload) });
    /** The record's fields as compact JSON, in bytes: what MAX_RECORD_BYTES counts. */
    const size = (record: Record<string, unknown>) => {
      const { id: _i, createdAt: _c, updatedAt: _u, ...fields } = record;
      return Buffer.byteLength(JSON.stringify(fields));
    };

    it('refuses a change whose result would pass the limit with 413, writing nothing', async () => {
      const made = body(await send('POST', `/${singular}/`, { pad: 'x'.repeat(3000) }));
      const url = `/${singular}/${made.id}/`;
      const before = await ctx.app.inject({ url });
      for (const method of ['PUT', 'PATCH']) {
        const refused = problem(await send(method, url, { more: 'y'.repeat(1200) }), 413, 'record-too-large');
        assert.match(refused.detail, /more than the 4096 this server keeps; nothing was written/);
        problem(await send(method, url, { more: 'y'.repeat(1200) }, { 'if-match': String(before.headers.etag) }), 413);
      }
      const after = await ctx.app.inject({ url });
      assert.equal(after.body, before.body);
      assert.equal(after.headers.etag, before.headers.etag);
      // A change that leaves it smaller (or within the limit) goes through.
      assert.equal((await send('PUT', url, { pad: null, small: 1 })).statusCode, 200);
    });

    it('stops a record grown by many merges at the limit', async () => {
      const made = body(await send('POST', `/${singular}/`, {}));
      const url = `/${singular}/${made.id}/`;
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await send('PUT', url, { [`f${i}`]: 'z'.repeat(500) })).statusCode);
      const accepted = statuses.filter((s) => s === 200).length;
      assert.ok(accepted >= 7 && accepted < 40, String(statuses));
      assert.deepEqual(statuses.slice(accepted), Array(40 - accepted).fill(413), 'each later one refused');
      const record = body(await ctx.app.inject({ url }));
      assert.ok(size(record) <= LIMIT && size(record) > LIMIT - 520, String(size(record)));
    });

    it('exports and imports back whatever the API accepted, at the limit', async () => {
      // Small values make the most of the blanks PostgreSQL writes after ',' and ':'.
      const zeros = body(await send('POST', `/${singular}/`, { z: [] }));
      const zerosUrl = `/${singular}/${zeros.id}/`;
      let n = 0;
      for (;;) {
        const next = n + 200;
        const response = await send('PUT', zerosUrl, { z: Array(next).fill(0) });
        if (response.statusCode !== 200) break;
        n = next;
      }
      for (let step = 199; step > 0; step = Math.floor(step / 2)) {
        if ((await send('PUT', zerosUrl, { z: Array(n + step).fill(0) })).statusCode === 200) n += step;
      }
      const keys = body(await send('POST', `/${singular}/`, {}));
      const keysUrl = `/${singular}/${keys.id}/`;
      for (let i = 0; ; i++) if ((await send('PUT', keysUrl, { [`k${i}`]: i % 10 })).statusCode !== 200) break;
      for (const url of [zerosUrl, keysUrl]) {
        const record = body(await ctx.app.inject({ url }));
        assert.ok(size(record) > LIMIT - 20, `${url} is ${size(record)} bytes, near the limit`);
      }
      const env = { BODY_LIMIT: String(LIMIT) };
      const source = body<Record<string, unknown>[]>(await ctx.app.inject({ url: `/${plural}/?limit=1000` }));
      for (const format of ['ndjson', 'json']) {
        const exported = await cli(ctx.db.url, ['export', '-c', plural, '--format', format], '', env);
        assert.equal(exported.code, 0, exported.stderr);
        const target = await kind.create();
        try {
          const imported = await cli(target.url, ['import', '-', '-c', plural], exported.stdout, env);
          assert.equal(imported.code, 0, imported.stderr);
          const store = await openStore(target.url, catalogOf(['users', 'products']));
          try {
            const copied = await store.collection(plural).list({ where: [], sort: [], limit: 1000 });
            assert.deepEqual(
              copied.map((r) => ({ id: r.id, ...JSON.parse(r.data), createdAt: r.createdAt, updatedAt: r.updatedAt })),
              source,
              format,
            );
          } finally {
            await store.close();
          }
        } finally {
          await target.drop();
        }
      }
    });

    describe('with MAX_RECORD_BYTES below BODY_LIMIT', () => {
      const small = useApp(kind, { bodyLimit: LIMIT, maxRecordBytes: 1000 });
      it('refuses a create over MAX_RECORD_BYTES with 413', async () => {
        const response = await small.app.inject({
          method: 'POST',
          url: `/${singular}/`,
          headers: JSON_HEADERS,
          payload: JSON.stringify({ pad: 'x'.repeat(1000) }),
        });
        problem(response, 413, 'record-too-large');
        assert.equal((await small.app.inject({ url: `/${plural}/` })).body, '[]');
      });
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`import refuses a huge line early (${kind.name})`, () => {
    const ctx = useApp(kind);
    const { plural } = DEFAULT_COLLECTIONS[0] as (typeof DEFAULT_COLLECTIONS)[number];

    it('stops at the line limit, names the line, holds no more than that, and writes nothing of its batch', async () => {
      // MAX_RECORD_BYTES is 1 MiB by default, so lines may be 2 MiB and 4 KiB; this one is 64 MiB.
      const limit = 2 * 1048576 + 4096;
      const pulled = { bytes: 0 };
      const input = Readable.from(hugeRecord('{"a":1}\n{"big":"', 64 << 20, pulled));
      const result = await cli(ctx.db.url, ['import', '-', '-c', plural], input);
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`line 2: the record is longer than ${limit} bytes`));
      assert.ok(pulled.bytes < limit + 32 * CHUNK, `read ${pulled.bytes} bytes`);
      assert.equal((await ctx.app.inject({ url: `/${plural}/` })).body, '[]');
    });

    it('writes large records in batches of at most 64 MiB, whatever --batch-size says', async () => {
      // 70 records of 1 MB, then a bad line: the batches before it are undone, and tell their size.
      const lines = function* () {
        for (let n = 0; n < 70; n++) yield Buffer.from(`{"n":${n},"pad":"${'x'.repeat(1_000_000)}"}\n`);
        yield Buffer.from('not json\n');
      };
      // A batch of 64 MiB is one statement: on a busy machine it may take PostgreSQL more than
      // the default 15 s budget, which is not what this test is about.
      const patient = { DATABASE_STATEMENT_TIMEOUT: '600000' };
      const result = await cli(ctx.db.url, ['import', '-', '-c', plural], Readable.from(lines()), patient);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /line 71: not valid JSON/);
      assert.match(result.stderr, /the 67 users written before it were deleted again/);
      assert.equal((await ctx.app.inject({ url: `/${plural}/?limit=1` })).body, '[]');
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`records of many fields (${kind.name})`, () => {
    const ctx = useApp(kind, { maxRecordFields: 1000 });
    const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, i]));

    it('refuses a body of more fields than MAX_RECORD_FIELDS, nested ones counted, with 400', async () => {
      const at = (payload: unknown) =>
        ctx.app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: JSON.stringify(payload) });
      assert.equal((await at(fields(1000))).statusCode, 201);
      assert.equal(
        (await at({ list: Array.from({ length: 5000 }, (_, i) => i) })).statusCode,
        201,
        'items are not fields',
      );
      for (const payload of [
        fields(1001),
        { ...fields(600), nested: fields(400) },
        { rows: [fields(500), fields(500)] },
      ]) {
        const refused = problem(await at(payload), 400, 'invalid-record');
        assert.match(refused.errors?.[0]?.message ?? '', /more than 1000 fields in the record/);
      }
      const lines = `${JSON.stringify(fields(1001))}\n`;
      const result = await cli(ctx.db.url, ['import', '-', '-c', 'users'], lines, { MAX_RECORD_FIELDS: '1000' });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /line 1: \/: more than 1000 fields in the record/);
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`merges of many keys (${kind.name})`, () => {
    // Past the default MAX_RECORD_FIELDS: the merge's own cost is measured here.
    const ctx = useApp(kind, { bodyLimit: 4 << 20, maxRecordFields: 100_000 });
    const { singular } = DEFAULT_COLLECTIONS[0] as (typeof DEFAULT_COLLECTIONS)[number];
    const keys = (prefix: string, count: number, value: (i: number) => unknown) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, value(i)]));
    const send = (method: string, url: string, payload: unknown, headers: Record<string, string> = {}) =>
      ctx.app.inject({ method, url, headers: { ...JSON_HEADERS, ...headers }, payload: JSON.stringify(payload) });

    // The review's case: 20,000 new keys onto a record of 20,000. Before, PostgreSQL's merge
    // ran past its 15 s statement timeout (a 503) and SQLite's took seconds.
    it('merges 20,000 new keys onto 20,000, with removals and nested merges, under If-Match', async () => {
      const made = await send('POST', `/${singular}/`, { ...keys('k', 20_000, (i) => i), nested: { a: 1, b: 2 } });
      assert.equal(made.statusCode, 201);
      const url = `/${singular}/${body(made).id}/`;
      const patch = { ...keys('n', 20_000, (i) => `v${i}`), ...keys('k', 100, () => null), nested: { b: null, c: 3 } };
      const stale = '"0"';
      problem(await send('PUT', url, patch, { 'if-match': stale }), 412);
      const merged = await send('PUT', url, patch, { 'if-match': String(made.headers.etag) });
      assert.equal(merged.statusCode, 200, merged.body.slice(0, 300));
      const record = body(merged);
      assert.equal(Object.keys(record).length, 3 + 19_900 + 20_000 + 1);
      assert.equal(record.k99, undefined);
      assert.equal(record.k100, 100);
      assert.equal(record.n19999, 'v19999');
      assert.deepEqual(record.nested, { a: 1, c: 3 });
      assert.equal((await ctx.app.inject({ url })).body.length, merged.body.length);
      problem(await send('PUT', url, { more: 1 }, { 'if-match': String(made.headers.etag) }), 412);
    });

    it('merges __proto__ and constructor as ordinary fields, polluting nothing', async () => {
      const made = body(await send('POST', `/${singular}/`, {}));
      const url = `/${singular}/${made.id}/`;
      const put = (text: string) => ctx.app.inject({ method: 'PUT', url, headers: JSON_HEADERS, payload: text });
      await put('{"__proto__":{"x":1},"constructor":{"prototype":{"p":1}}}');
      const record = body(await put('{"__proto__":{"y":2},"constructor":{"prototype":null}}'));
      assert.deepEqual(Object.getOwnPropertyDescriptor(record, '__proto__')?.value, { x: 1, y: 2 });
      assert.deepEqual(record.constructor, {});
      assert.equal(({} as Record<string, unknown>).x, undefined);
      assert.equal(({} as Record<string, unknown>).y, undefined);
      const removed = body(await put('{"__proto__":null}'));
      assert.equal(Object.hasOwn(removed, '__proto__'), false);
    });
  });
}

describe('JSON Merge Patch in the application', () => {
  it('looks at each key of the patch a fixed number of times, whatever the record holds', () => {
    for (const size of [1_000, 10_000, 100_000]) {
      let traps = 0;
      // Every operation on either object goes through a trap that counts it, then does it.
      const counting = Object.fromEntries(
        (['get', 'has', 'set', 'deleteProperty', 'defineProperty', 'getOwnPropertyDescriptor'] as const).map((trap) => [
          trap,
          (...args: unknown[]) => {
            traps++;
            return (Reflect[trap] as (...a: unknown[]) => unknown)(...args);
          },
        ]),
      ) as ProxyHandler<object>;
      const count = <T extends object>(value: T): T => new Proxy(value, counting as ProxyHandler<T>);
      const record: Record<string, unknown> = {};
      for (let i = 0; i < size; i++) record[`k${i}`] = i;
      const patch: Record<string, unknown> = {};
      for (let i = 0; i < size; i++) patch[`n${i}`] = i;
      for (let i = 0; i < 10; i++) patch[`k${i}`] = null;
      const merged = mergePatch(count(record), count(patch)) as Record<string, unknown>;
      assert.equal(Object.keys(merged).length, 2 * size - 10);
      const keys = size + 10;
      // Each patch key: listed and read in the patch, looked up and written in the record; a
      // Proxy sees each step as a few operations, the same few whatever the record's size.
      assert.ok(traps <= 10 * keys, `${traps} operations for ${keys} patch keys onto ${size}`);
    }
  });
});

for (const kind of STORE_KINDS) {
  describe(`pages stay within MAX_PAGE_BYTES (${kind.name})`, () => {
    const MAX = 10_000;
    const ctx = useApp(kind, { maxPageBytes: MAX });
    const { plural, singular } = DEFAULT_COLLECTIONS[1] as (typeof DEFAULT_COLLECTIONS)[number];
    const ids: number[] = [];

    /** Every page from `url` on, following Link rel="next". */
    const walk = async (url: string) => {
      const pages: { status: number; bytes: number; records: Record<string, unknown>[] }[] = [];
      let next: string | undefined = url;
      while (next !== undefined) {
        const response: LightMyRequestResponse = await ctx.app.inject({ url: next });
        pages.push({ status: response.statusCode, bytes: response.rawPayload.length, records: body(response) });
        next = /<([^>]+)>; rel="next"/.exec(String(response.headers.link ?? ''))?.[1];
      }
      return pages;
    };

    it('ends a page before the record that would pass the limit, and the next link goes on from there', async () => {
      // 3,000-byte records, and one of 12,000 that no page can hold with another.
      for (let n = 0; n < 12; n++) {
        const pad = 'x'.repeat(n === 5 ? 12_000 : 3_000);
        const made = await ctx.app.inject({
          method: 'POST',
          url: `/${singular}/`,
          headers: JSON_HEADERS,
          payload: { n, pad },
        });
        ids.push(body(made).id as number);
      }
      for (const query of ['limit=1000', 'limit=1000&sort=-n', 'limit=1000&offset=1']) {
        const pages = await walk(`/${plural}/?${query}`);
        const seen = pages.flatMap((page) => page.records.map((r) => r.id));
        const expected = query.includes('-n') ? [...ids].reverse() : query.includes('offset') ? ids.slice(1) : ids;
        assert.deepEqual(seen, expected, `${query}: every record once, in order`);
        for (const page of pages) {
          assert.equal(page.status, 200);
          assert.ok(page.records.length >= 1);
          assert.ok(page.bytes <= MAX || page.records.length === 1, `${query}: a page of ${page.bytes} bytes`);
        }
        assert.ok(
          pages.some((page) => page.records.length === 1 && page.bytes > MAX),
          'the big one alone',
        );
        assert.ok(
          pages.some((page) => page.records.length === 3),
          'three of 3,000 bytes fit, a fourth not',
        );
      }
      // A small projection fits many more: the budget counts what is sent.
      const slim = await walk(`/${plural}/?limit=1000&fields=n`);
      assert.equal(slim.length, 1);
      assert.equal(slim[0]?.records.length, 12);
    });
  });

  describe(`pages of records of 1 MB under the default MAX_PAGE_BYTES (${kind.name})`, () => {
    const ctx = useApp(kind, { bodyLimit: 1_100_000 });
    const { plural, singular } = DEFAULT_COLLECTIONS[1] as (typeof DEFAULT_COLLECTIONS)[number];

    it('sends 8 records of 1 MB per page of 8 MiB, then the rest, never a 500', async () => {
      for (let n = 0; n < 12; n++) {
        const made = await ctx.app.inject({
          method: 'POST',
          url: `/${singular}/`,
          headers: JSON_HEADERS,
          payload: JSON.stringify({ n, pad: 'x'.repeat(1_000_000) }),
        });
        assert.equal(made.statusCode, 201);
      }
      const first = await ctx.app.inject({ url: `/${plural}/?limit=1000` });
      assert.equal(first.statusCode, 200);
      assert.equal(body<unknown[]>(first).length, 8);
      assert.ok(first.rawPayload.length <= 8 * 1024 * 1024);
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1] ?? '';
      const second = await ctx.app.inject({ url: next });
      assert.deepEqual(
        body<{ n: number }[]>(second).map((r) => r.n),
        [8, 9, 10, 11],
      );
      assert.equal(second.headers.link, undefined);
      // Export reads in pages of at most 8 MiB too, and writes every record once, in order.
      const exported = await cli(ctx.db.url, ['export', '-c', plural], '', { BODY_LIMIT: '1100000' });
      assert.equal(exported.code, 0, exported.stderr);
      assert.deepEqual(
        exported.stdout
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line).n),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      );
    });
  });
}

describe('reading a page in rounds', () => {
  /** A collection of `sizes.length` records, record i rendering to sizes[i] bytes; counts what is read. */
  const fake = (sizes: number[]) => {
    const reads: number[] = [];
    const records = sizes.map((size, i) => ({
      id: i + 1,
      data: `{"pad":"${'x'.repeat(Math.max(0, size - 10))}"}`,
      version: 1,
      createdAt: '',
      updatedAt: '',
      position: [i + 1],
    }));
    const collection = {
      async list(query: ListQuery) {
        const from = query.after ? Number(query.after[0]) : (query.offset ?? 0);
        const rows = records.slice(from, from + query.limit);
        reads.push(rows.length);
        return rows;
      },
    } as unknown as Records;
    return { collection, reads };
  };
  const render = (record: StoredRecord) => record.data;

  it('reads little more than it sends, whatever the records weigh', async () => {
    const MAX = 8 << 20;
    // 1,000 records of 1 MB: a page of 8, read in one round of 101 (a default page's query).
    const big = fake(Array(1000).fill(1_000_000));
    const page = await readPage(big.collection, { where: [], sort: [], limit: 1000 }, render, MAX);
    assert.equal(page.records.length, 8);
    assert.deepEqual(big.reads, [101]);
    // 1,000 small ones, then large ones: rounds grow with the room left, at most doubling.
    const mixed = fake([...Array(150).fill(100), ...Array(850).fill(1_000_000)]);
    const mixedPage = await readPage(mixed.collection, { where: [], sort: [], limit: 1000 }, render, MAX);
    assert.equal(mixedPage.records.length, 158);
    assert.ok(mixed.reads.reduce((a, b) => a + b) <= 101 + 203, String(mixed.reads));
    // Small records: a page of 1,000 in four rounds (101, then each at most twice the last).
    const small = fake(Array(2000).fill(100));
    const smallPage = await readPage(small.collection, { where: [], sort: [], limit: 1000 }, render, MAX);
    assert.equal(smallPage.records.length, 1000);
    assert.equal(smallPage.more, true);
    assert.deepEqual(small.reads, [101, 203, 407, 290]);
  });
});
