/**
 * `?filter=` on a list (src/records/list-filter.ts), on both stores: the rule language's
 * comparisons, `||`, `!` and parentheses over a closed schema's fields, with null and quoted
 * strings; beside the shorthand filters and through cursor pages; the 400s that name the
 * parameter; and the change feed's events filtered by one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { body, create, problem, useApp } from './helpers/app.js';
import { openEventStream, type StreamEvent } from './helpers/event-stream.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';

const schemas = mkdtempSync(join(tmpdir(), 'restock-filter-'));
writeFileSync(
  join(schemas, 'goods.schema.json'),
  JSON.stringify({
    type: 'object',
    'x-singular': 'good',
    'x-index': ['price'],
    additionalProperties: false,
    properties: {
      name: { type: 'string' },
      price: { type: ['number', 'null'] },
      stock: { type: 'integer' },
      category: { type: 'string' },
    },
  }),
);

const GOODS = [
  { name: "Ada's", price: 50, stock: 5, category: 'toys' },
  { name: 'B', price: 150, stock: 0, category: 'tools' },
  { name: 'C', price: 150, stock: 3, category: 'tools' },
  { name: 'D', price: 200, stock: 1, category: 'toys' },
  { name: 'E', price: null, stock: 2, category: 'books' },
  { name: 'say "hi"', price: 10, stock: 0, category: 'books' },
];

for (const kind of STORE_KINDS) {
  describe(`?filter= on a list (${kind.name})`, () => {
    const ctx = useApp(kind, { schemas }, { contract: true });
    const list = (query: string) => ctx.app.inject({ method: 'GET', url: `/goods/?${query}` });
    /** The names of the records `filter` (with `more` query parameters) lists, in id order. */
    const names = async (filter: string, more = '') => {
      const response = await list(`filter=${encodeURIComponent(filter)}${more}`);
      assert.equal(response.statusCode, 200, response.body);
      return body<{ name: string }[]>(response).map((record) => record.name);
    };

    it('lists what the expression holds for: ||, &&, parentheses', async () => {
      for (const good of GOODS) await create(ctx.app, 'good', good);
      assert.deepEqual(await names("(price > 100 && stock > 0) || category = 'toys'"), ["Ada's", 'C', 'D']);
      assert.deepEqual(await names('price > 100 && stock > 0'), ['C', 'D']);
      assert.deepEqual(await names("price > 100 && (stock > 0 || category == 'tools')"), ['B', 'C', 'D']);
    });

    it('negates with !, compares with each typed comparison, and in', async () => {
      assert.deepEqual(await names("!(category == 'toys')"), ['B', 'C', 'E', 'say "hi"']);
      assert.deepEqual(await names('!(stock > 0) && price != null'), ['B', 'say "hi"']);
      assert.deepEqual(await names('price < 100'), ["Ada's", 'say "hi"']);
      assert.deepEqual(await names('price <= 150 && price >= 150'), ['B', 'C']);
      assert.deepEqual(await names('price >= 200'), ['D']);
      assert.deepEqual(await names("category in ['books', 'toys']"), ["Ada's", 'D', 'E', 'say "hi"']);
      // Typed: a number is not the text of it.
      assert.deepEqual(await names("price == '150'"), []);
      assert.deepEqual(await names('id == 1 || id > 5'), ["Ada's", 'say "hi"']);
    });

    it('compares with null, and with strings holding quotes', async () => {
      assert.deepEqual(await names('price == null'), ['E']);
      assert.deepEqual(await names('price != null && stock == 0'), ['B', 'say "hi"']);
      assert.deepEqual(await names(`name == "Ada's"`), ["Ada's"]);
      assert.deepEqual(await names(`name == 'Ada\\'s' || name == 'say "hi"'`), ["Ada's", 'say "hi"']);
      assert.deepEqual(await names('false || name == "nobody"'), []);
      assert.deepEqual(
        await names('true'),
        GOODS.map((good) => good.name),
      );
    });

    it('is ANDed with the shorthand filters', async () => {
      assert.deepEqual(await names("category = 'tools' || category = 'toys'", '&stock[gt]=0'), ["Ada's", 'C', 'D']);
      assert.deepEqual(await names('price > 100 || price < 20', '&category=toys'), ['D']);
    });

    it('pages by cursor with the filter kept', async () => {
      const seen: string[] = [];
      let url: string | undefined =
        `/goods/?limit=2&sort=-price&filter=${encodeURIComponent("category != 'books' || stock > 1")}`;
      for (let pages = 0; url !== undefined; pages += 1) {
        assert.ok(pages < 10, 'the pages end');
        const response: Awaited<ReturnType<typeof list>> = await ctx.app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 200, response.body);
        seen.push(...body<{ name: string }[]>(response).map((record) => record.name));
        url = /<([^>]+)>; rel="next"/.exec(String(response.headers.link ?? ''))?.[1];
      }
      // Descending price, ties by id (descending too); null is where each store sorts it, first or last.
      assert.deepEqual([...seen].sort(), ["Ada's", 'B', 'C', 'D', 'E']);
      assert.deepEqual(
        seen.filter((name) => name !== 'E'),
        ['D', 'C', 'B', "Ada's"],
      );
    });

    it('refuses a mistake with a 400 naming filter and the column', async () => {
      const refused = async (filter: string, pattern: RegExp) => {
        const response = await list(`filter=${encodeURIComponent(filter)}`);
        const document = problem(response, 400, 'invalid-query') as unknown as {
          detail: string;
          errors: { pointer: string; message: string }[];
        };
        assert.deepEqual(
          document.errors.map((error) => error.pointer),
          ['/filter'],
        );
        assert.match(document.detail, pattern);
      };
      await refused('price >', /filter column 8: expected a value after ">"/);
      await refused('price ~ 3', /column 7: unexpected character "~"/);
      await refused('(price > 1', /expected "\)" to close/);
      await refused("colour == 'red'", /names colour, which no record of this collection has/);
      await refused('auth.id == 1', /auth\.\* is not in a filter/);
      await refused('price == stock', /compares two fields/);
      await refused(Array.from({ length: 21 }, (_, i) => `stock == ${i}`).join(' || '), /at most 20 comparisons/);
      await refused(`${'!'.repeat(33)}true`, /at most 32 levels deep/);
      await refused(`name == '${'x'.repeat(2000)}'`, /at most 2000 characters/);
    });

    it("filters the change feed's events by the expression", async () => {
      const origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const filter = encodeURIComponent("stock > 0 && (category = 'toys' || price == null)");
      const feed = await openEventStream(`${origin}/goods/events/?filter=${filter}`);
      try {
        await create(ctx.app, 'good', { name: 'out of stock', price: null, stock: 0, category: 'toys' });
        await create(ctx.app, 'good', { name: 'priced tool', price: 5, stock: 1, category: 'tools' });
        await create(ctx.app, 'good', { name: 'unpriced tool', price: null, stock: 1, category: 'tools' });
        const [event] = await feed.take(1);
        assert.equal((JSON.parse((event as StreamEvent).data) as { name: string }).name, 'unpriced tool');
      } finally {
        await feed.close();
      }
    });

    itKeptTheDocument(ctx);
  });
}
