/** SPEC §6 on every store: pages, order, filters, search, counting and projections. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { MAX_FIELDS, MAX_SORT_KEYS } from '../src/records/list-query.js';
import { body, create, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';

type Row = Record<string, unknown> & { id: number; name: string };

/** Products of every JSON type, so that typed comparisons and the order across types show. */
const SEED = [
  { name: 'Teapot', price: 19.5, sku: 'T-1', tags: ['kitchen', 'tea'], active: true, dims: { w: 10 } },
  { name: 'apple', price: 2, sku: 'A-1', tags: ['fruit'], active: false },
  { name: 'Banana', price: 2, sku: 'B-1', tags: ['fruit', 'yellow'], dims: { w: 3 } },
  { name: 'cherry', price: '3', sku: 'C-1' },
  { name: 'Éclair', price: null },
  { name: 'date' },
  { name: 'Zebra mug', price: 100, tags: [], nested: { deep: { note: 'Found me' } } },
];

/** GET a list; asserts 200 and returns the records. */
async function list(app: FastifyInstance, query: string, headers: Record<string, string> = {}) {
  const response = await app.inject({ url: `/products/?${query}`, headers });
  assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
  return { rows: body<Row[]>(response), response };
}

const names = (rows: Row[]) => rows.map((r) => r.name);

/** Follows rel="next" from `first` to the end and returns every record seen. */
async function walk(app: FastifyInstance, first: string, onPage?: (page: Row[]) => Promise<void>) {
  const seen: Row[] = [];
  let url: string | undefined = first;
  for (let pages = 0; url && pages < 1000; pages++) {
    const response: LightMyRequestResponse = await app.inject({ url });
    assert.equal(response.statusCode, 200, response.body);
    const page = body<Row[]>(response);
    seen.push(...page);
    await onPage?.(page);
    url = /<([^>]+)>; rel="next"/.exec(String(response.headers.link ?? ''))?.[1];
  }
  return seen;
}

for (const kind of STORE_KINDS) {
  describe(`collections (${kind.name})`, () => {
    const ctx = useApp(kind, {}, { contract: true });
    before(async () => {
      for (const product of SEED) await create(ctx.app, 'product', product);
    });

    it('sorts by any field, one JSON type after another, ties by id', async () => {
      const byPrice = ['Éclair', 'date', 'apple', 'Banana', 'Teapot', 'Zebra mug', 'cherry'];
      assert.deepEqual(names((await list(ctx.app, 'sort=price')).rows), byPrice);
      assert.deepEqual(names((await list(ctx.app, 'sort=-price')).rows), [...byPrice].reverse());
      // Strings by code point: upper case before lower, accented letters last.
      const byName = ['Banana', 'Teapot', 'Zebra mug', 'apple', 'cherry', 'date', 'Éclair'];
      assert.deepEqual(names((await list(ctx.app, 'sort=name')).rows), byName);
      assert.deepEqual(names((await list(ctx.app, 'sort=price,-name')).rows), [
        'Éclair',
        'date',
        'apple',
        'Banana',
        'Teapot',
        'Zebra mug',
        'cherry',
      ]);
      assert.deepEqual(names((await list(ctx.app, 'sort=dims.w')).rows).slice(-2), ['Banana', 'Teapot']);
      const ids = (await list(ctx.app, 'sort=-id')).rows.map((r) => r.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
      );
      const created = (await list(ctx.app, 'sort=-createdAt,-id')).rows.map((r) => r.createdAt as string);
      assert.deepEqual(created, [...created].sort().reverse());
    });

    it('pages through any order with the cursor, exactly as the unpaged list', async () => {
      for (const sort of ['', 'sort=price', 'sort=-price', 'sort=price,-name', 'sort=tags', 'sort=-dims.w,name']) {
        const whole = names((await list(ctx.app, sort)).rows);
        const paged = names(await walk(ctx.app, `/products/?limit=2&${sort}`));
        assert.deepEqual(paged, whole, sort);
      }
    });

    it('filters with typed comparisons: numbers with numbers, strings with strings', async () => {
      const cases: [string, string[]][] = [
        ['price=2', ['apple', 'Banana']],
        ['price="3"', ['cherry']],
        ['price=3', []],
        ['price[gte]=19.5', ['Teapot', 'Zebra mug']],
        ['price[lt]=20', ['Teapot', 'apple', 'Banana']],
        ['price[ne]=2', ['Teapot', 'cherry', 'Éclair', 'date', 'Zebra mug']],
        ['price=null', ['Éclair', 'date']],
        ['price[in]=2,100', ['apple', 'Banana', 'Zebra mug']],
        ['price[gte]=2&price[lte]=19.5', ['Teapot', 'apple', 'Banana']],
        ['name=apple&sort=name', ['apple']],
        ['name=apple&sort=-name,tags', ['apple']],
        ['name[startsWith]=Ba', ['Banana']],
        ['name[startsWith]=ba', []],
        ['name[contains]=an', ['Banana']],
        ['tags[contains]=fruit', ['apple', 'Banana']],
        ['tags[contains]=fruit&tags[contains]=yellow', ['Banana']],
        ['active=true', ['Teapot']],
        ['active=false', ['apple']],
        ['dims.w[gt]=5', ['Teapot']],
        ['nested.deep.note=Found me', ['Zebra mug']],
        ['sku[in]=A-1,C-1', ['apple', 'cherry']],
        ['q=FOUND', ['Zebra mug']],
        ['q=teapot', ['Teapot']],
        ['q=fruit', ['apple', 'Banana']],
        ['q=éclair', ['Éclair']],
        ['q=ÉCLAIR', ['Éclair']],
        ["name=' OR 1=1 --", []],
        ["name';DROP TABLE products;--=1", []],
      ];
      for (const [query, expected] of cases) {
        assert.deepEqual(names((await list(ctx.app, encodeQuery(query))).rows), expected, query);
      }
      const all = (await list(ctx.app, '')).rows;
      const second = all[1] as Row;
      assert.deepEqual(names((await list(ctx.app, `id[gt]=${second.id}&id[lte]=${second.id + 1}`)).rows), ['Banana']);
      assert.equal((await list(ctx.app, `createdAt[gte]=${all[0]?.createdAt}`)).rows.length, all.length);
      assert.equal((await list(ctx.app, 'createdAt[startsWith]=1999')).rows.length, 0);
    });

    it('keeps the reserved names out of the filters', async () => {
      const { rows } = await list(ctx.app, 'fields=name&limit=3&sort=id');
      assert.deepEqual(
        rows,
        (await list(ctx.app, 'limit=3')).rows.map((r) => ({ id: r.id, name: r.name })),
      );
    });

    it('returns only the named fields with fields=', async () => {
      const { rows } = await list(ctx.app, 'name=Teapot&fields=name,dims.w,createdAt,missing');
      const [teapot] = rows;
      assert.deepEqual(Object.keys(teapot ?? {}), ['id', 'name', 'dims', 'createdAt']);
      assert.deepEqual(teapot?.dims, { w: 10 });
    });

    it(`caps fields= at ${MAX_FIELDS} names and sort= at ${MAX_SORT_KEYS} keys, with a 400 naming the parameter`, async () => {
      const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`).join(',');
      assert.equal((await list(ctx.app, `fields=${names(MAX_FIELDS)}&limit=1`)).rows.length, 1);
      assert.equal((await list(ctx.app, `sort=${names(MAX_SORT_KEYS)}&limit=1`)).rows.length, 1);
      for (const [query, parameter] of [
        [`fields=${names(MAX_FIELDS + 1)}`, 'fields'],
        [`fields=${names(2200)}`, 'fields'],
        [`sort=${names(MAX_SORT_KEYS + 1)}`, 'sort'],
      ] as const) {
        const parsed = problem(await ctx.app.inject({ url: `/products/?${query}` }), 400, 'invalid-query');
        assert.ok(parsed.detail.includes(`parameter ${parameter} `), parsed.detail);
        assert.deepEqual(parsed.errors?.[0]?.pointer, `/${parameter}`);
      }
    });

    it('counts on request only, with Prefer: count=exact', async () => {
      const plain = await list(ctx.app, 'price=2');
      assert.equal(plain.response.headers['x-total-count'], undefined);
      const counted = await list(ctx.app, 'price[gte]=2&limit=1', { prefer: 'count=exact' });
      assert.equal(counted.response.headers['x-total-count'], '4');
      assert.equal(counted.response.headers['preference-applied'], 'count=exact');
      assert.equal(counted.rows.length, 1);
    });

    it('accepts offset, and its next link continues with a cursor', async () => {
      const all = names((await list(ctx.app, '')).rows);
      const { rows, response } = await list(ctx.app, 'offset=2&limit=2');
      assert.deepEqual(names(rows), all.slice(2, 4));
      const next = /<([^>]+)>; rel="next"/.exec(String(response.headers.link))?.[1] ?? '';
      assert.match(next, /cursor=/);
      assert.doesNotMatch(next, /offset=/);
      assert.deepEqual(names(await walk(ctx.app, next)), all.slice(4));
      assert.deepEqual((await list(ctx.app, 'offset=100')).rows, [], 'past the end: an empty page');
    });

    it('keeps filters and sort in the next link', async () => {
      const walked = await walk(ctx.app, '/products/?price[gte]=2&sort=-price&limit=1');
      assert.deepEqual(names(walked), ['Zebra mug', 'Teapot', 'Banana', 'apple']);
    });

    it('answers 400 naming the parameter for every malformed query', async () => {
      const cases: [string, string][] = [
        ['price[foo]=1', 'price[foo]'],
        ['price[gt]=null', 'price[gt]'],
        ['a..b=1', 'a..b'],
        ['a[b=1', 'a[b'],
        ['id=abc', 'id'],
        ['id[startsWith]=1', 'id[startsWith]'],
        ['id[contains]=1', 'id[contains]'],
        ['id.x=1', 'id.x'],
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=ten', 'limit'],
        ['offset=-1', 'offset'],
        // Numbers past a double's range: the validator reads them as Infinity.
        ['offset=1e400', 'offset'],
        ['offset=-1e400', 'offset'],
        ['limit=1e400', 'limit'],
        ['sort=', 'sort'],
        ['sort=a,,b', 'sort'],
        ['sort=a"b', 'sort'],
        ['q=', 'q'],
        ['cursor=garbage', 'cursor'],
        ['cursor=e30&offset=1', 'offset'],
        ['limit=1&limit=2', 'limit'],
      ];
      for (const [query, parameter] of cases) {
        const response = await ctx.app.inject({ url: `/products/?${encodeQuery(query)}` });
        const parsed = problem(response, 400, 'invalid-query');
        assert.ok(parsed.detail.includes(parameter), `${query}: ${parsed.detail}`);
        const after = parsed.detail.slice(parsed.detail.indexOf(parameter) + parameter.length).trim();
        assert.ok(
          !after.startsWith(`${parameter.split('[')[0]} `),
          `${query}: names the field twice: ${parsed.detail}`,
        );
        assert.doesNotMatch(parsed.detail, /\b(\w+)\W+\1\b/, `${query}: a word twice in a row: ${parsed.detail}`);
      }
      const { detail } = problem(await ctx.app.inject({ url: '/users/?id[startsWith]=1' }), 400, 'invalid-query');
      assert.equal(detail, 'The query parameter id[startsWith] compares text, and ids are numbers.');
    });

    it('refuses, alike on both stores, names and values no store can query: 400, never 500', async () => {
      const nul = Buffer.from(JSON.stringify({ p: ['\u0000', 0, '', 1], s: 'name' })).toString('base64url');
      const cases: [string, string][] = [
        ['a%5C=1', 'a\\'],
        ['sort=a%5C', 'sort'],
        ['a%5C[in]=1,2', 'a\\[in]'],
        ['fields=a.b%5C', 'fields'],
        ['x=%00', 'x'],
        ['x=%22%5Cu0000%22', 'x'],
        ['x=%22%5Cud800%22', 'x'],
        ['x[contains]=%22%5Cud800%22', 'x[contains]'],
        ['q=%00', 'q'],
        ['x[startsWith]=%00', 'x[startsWith]'],
        ['x[in]=a,%00', 'x[in]'],
        ['createdAt=a%00', 'createdAt'],
        [`sort=name&cursor=${nul}`, 'cursor'],
      ];
      for (const [query, parameter] of cases) {
        const parsed = problem(await ctx.app.inject({ url: `/products/?${query}` }), 400, 'invalid-query');
        assert.ok(parsed.detail.includes(`parameter ${parameter} `), `${query}: ${parsed.detail}`);
      }
    });

    it('compares id with any number, selecting the ids a comparison of numbers would', async () => {
      const ids = (await list(ctx.app, '')).rows.map((r) => r.id);
      const cases: [string, (id: number) => boolean][] = [
        ['id=1e20', () => false],
        ['id[gt]=-1e308', () => true],
        ['id[lt]=-1e308', () => false],
        ['id[lte]=1e308', () => true],
        ['id[gte]=1e20', () => false],
        ['id=9007199254740993', () => false],
        ['id=1.5', () => false],
        ['id[ne]=1.5', () => true],
        ['id[gt]=1.5', (id) => id > 1.5],
        ['id[gte]=1.5', (id) => id >= 1.5],
        ['id[lt]=2.5', (id) => id < 2.5],
        ['id[lte]=2.5', (id) => id <= 2.5],
        ['id[gt]=5e-324', () => true],
        ['id[in]=1,1e30,2.5,-3', (id) => id === 1],
      ];
      for (const [query, selects] of cases) {
        assert.deepEqual(
          (await list(ctx.app, query)).rows.map((r) => r.id),
          ids.filter(selects),
          query,
        );
      }
    });

    it('refuses a cursor made for another sort, or forged', async () => {
      const first = await list(ctx.app, 'sort=price&limit=1');
      const next = /cursor=([^&>]+)/.exec(String(first.response.headers.link))?.[1] ?? '';
      problem(await ctx.app.inject({ url: `/products/?sort=name&cursor=${next}` }), 400, 'invalid-query');
      for (const forged of [
        { p: [1], s: 'price' },
        { p: ['x', 'y', 'z', 'w'], s: 'price' },
        { p: [1.5, 0, '', 1], s: 'price' },
      ]) {
        const cursor = Buffer.from(JSON.stringify(forged)).toString('base64url');
        problem(await ctx.app.inject({ url: `/products/?sort=price&cursor=${cursor}` }), 400, 'invalid-query');
      }
    });

    itKeptTheDocument(ctx);
  });

  describe(`walking while others write (${kind.name})`, () => {
    const ctx = useApp(kind);
    // Real HTTP, reader and writer each on their own connections: requests made with
    // inject can run back to back without the event loop turning, and then SQLite's
    // group commit would not get to commit a single write until the walk had ended.
    let origin: string;
    before(async () => {
      origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    });

    // By id, by an indexed field both ways (the index's own keyset path on SQLite), and by
    // a field with no index (the generic one).
    for (const sort of ['', 'price', '-price', '-name']) {
      it(`never returns a record twice and misses none that stayed, in order${sort ? ` (sort=${sort})` : ''}`, async () => {
        for (let n = 0; n < 60; n++) await create(ctx.app, 'product', { name: `before ${n}`, price: n % 20 });
        const existing = await list(ctx.app, 'limit=1000');
        assert.equal(existing.response.headers.link, undefined, 'the whole collection on one page');
        const writer = { writes: 0, pages: 0, deleted: new Set<number>(), walking: true, done: false };
        const progress: number[] = [];
        const [seen] = await Promise.all([
          walkOverHttp(`${origin}/products/?limit=5${sort ? `&sort=${sort}` : ''}`, async () => {
            progress.push(writer.writes);
            writer.pages++;
            // Both run at once; the reader only waits, after each page, for the writer to
            // have landed one more write, so that writes fall between pages however the
            // machine schedules the two.
            const seenWrites = writer.writes;
            while (writer.writes === seenWrites && !writer.done) await new Promise((resolve) => setTimeout(resolve, 1));
          }).finally(() => {
            writer.walking = false;
          }),
          writeWhileWalking(
            origin,
            writer,
            existing.rows.map((r) => r.id),
          ).finally(() => {
            writer.done = true;
          }),
        ]);

        // The writes really ran between the pages, not before or after the walk.
        const pagesAfterWrites = progress.filter((writes, i) => i > 0 && writes > (progress[i - 1] ?? 0)).length;
        assert.ok(
          pagesAfterWrites >= progress.length / 4,
          `writes landed before only ${pagesAfterWrites} of ${progress.length} pages`,
        );

        const ids = seen.map((r) => r.id);
        assert.equal(new Set(ids).size, ids.length, 'no record twice');
        const stayed = existing.rows.filter((r) => !writer.deleted.has(r.id));
        for (const { id } of stayed) assert.ok(ids.includes(id), `record ${id}, there for the whole walk, was seen`);
        // Records never change here, so each one's place in the order is fixed: every
        // record must come strictly after the one before it (ties by id, in the
        // direction of the sort).
        const field = sort.replace(/^-/, '');
        const key = (r: Row) => (field ? [r[field] as number | string, r.id] : [r.id]);
        for (let i = 1; i < seen.length; i++) {
          const [previous, next] = [seen[i - 1] as Row, seen[i] as Row];
          const step = compareKeys(key(previous), key(next)) * (sort.startsWith('-') ? -1 : 1);
          assert.ok(step < 0, `out of order: ${JSON.stringify(previous)} then ${JSON.stringify(next)}`);
        }
      });
    }
  });
}

/** Follows rel="next" over real HTTP from `first` to the end, calling `onPage` after each page. */
async function walkOverHttp(first: string, onPage: () => Promise<void>): Promise<Row[]> {
  const seen: Row[] = [];
  for (let url: string | undefined = first, pages = 0; url && pages < 1000; pages++) {
    const response = await fetch(url);
    assert.equal(response.status, 200, url);
    seen.push(...((await response.json()) as Row[]));
    await onPage();
    const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    url = next && new URL(next, first).href;
  }
  return seen;
}

/** Writes at most this many times during one walk. */
const MAX_WRITES = 200;
/** Runs at most this many writes ahead of the pages read, so the writer cannot finish early. */
const WRITES_PER_PAGE = 2;

/**
 * While `writer.walking`: alternately creates a record (its price and name land anywhere
 * in the walk's order, before and after the reader's position) and deletes one, of those
 * there before the walk or made since. A deleted id is noted before its DELETE is sent, so
 * that it never counts as a record that stayed.
 */
async function writeWhileWalking(
  origin: string,
  writer: { writes: number; pages: number; deleted: Set<number>; walking: boolean },
  existing: number[],
) {
  const live = [...existing];
  for (let i = 0; writer.walking && i < MAX_WRITES; i++) {
    while (writer.walking && writer.writes >= (writer.pages + 1) * WRITES_PER_PAGE) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    if (!writer.walking) break;
    if (i % 2 === 0) {
      const response = await fetch(`${origin}/product/`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ name: `during ${i}`, price: (i * 7) % 20 }),
      });
      assert.equal(response.status, 201);
      live.push(((await response.json()) as Row).id);
    } else {
      // Spread over the ids, old and new: a fixed stride rather than Math.random, so that a
      // failure names the same victims when run again.
      const [victim] = live.splice((i * 7919) % live.length, 1);
      if (victim === undefined) continue;
      writer.deleted.add(victim);
      const response = await fetch(`${origin}/product/${victim}/`, { method: 'DELETE' });
      assert.equal(response.status, 200, await response.text());
    }
    writer.writes++;
  }
}

/** Compares two sort keys term by term: numbers as numbers, strings by code point. */
function compareKeys(a: (number | string)[], b: (number | string)[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i] as number | string, b[i] as number | string];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Encodes the values of a query written plainly (`a=b c&d=e`), keeping names readable. */
function encodeQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? pair : `${encodeURIComponent(pair.slice(0, at))}=${encodeURIComponent(pair.slice(at + 1))}`;
    })
    .join('&');
}
