/**
 * `?filter=` against the rules' meaning, on both stores: a random expression over random
 * records, printed as text and read as a list's query (src/records/list-query.ts, then
 * list-filter.ts and the list rules' compiler), lists exactly the records it holds for, read
 * off its tree (ruleMeaning in test/helpers/rule-trees.ts), which the evaluator in JavaScript
 * (src/records/rules/filter-holds.ts) finds too, and counts as many; beside a random
 * shorthand filter too. And
 * the planner's verdict on a filter is its shorthand's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Operand, RuleNode, RuleValue } from '../src/core/rules/rule-tree.js';
import { parseListQuery } from '../src/records/list-query.js';
import { ruleHolds } from '../src/records/rules/filter-holds.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { catalogOf } from './helpers/catalog.js';
import { asRule, compare, ids, order, printRule, ruleMeaning, ruleTrees } from './helpers/rule-trees.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const catalog = catalogOf(['things'], { indexes: [{ collection: 'things', path: ['a'] }] });

const SCALARS: RuleValue[] = [null, true, false, 0, 1, 2, -1, 1.5, '', 'a', 'b', "it's", 'say "hi"', 'é', '😀', '1'];
const scalar = fc.constantFrom(...SCALARS);
const value = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 2, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: scalar.map((c) => ({ c })) },
);
const fields = fc.record({ a: value, b: value, n: value, tags: value }, { requiredKeys: [] });

const PATHS = [['a'], ['b'], ['n', 'c'], ['tags'], ['id'], ['createdAt'], ['missing']];
const field = fc.constantFrom(...PATHS).map((path): Operand => ({ kind: 'field', scope: 'record', path }));
const literal = scalar.map((v): Operand => ({ kind: 'literal', value: v }));
const list = fc.array(scalar, { maxLength: 4 }).map((items): Operand => ({ kind: 'list', items }));
const comparison = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(field, order, literal).map(([l, op, r]) => compare(l, op, r)) },
  { weight: 2, arbitrary: fc.tuple(literal, order, field).map(([l, op, r]) => compare(l, op, r)) },
  { weight: 2, arbitrary: fc.tuple(field, list).map(([l, r]) => compare(l, 'in', r)) },
  { weight: 1, arbitrary: fc.tuple(literal, field).map(([l, r]) => compare(l, 'in', r)) },
  { weight: 1, arbitrary: fc.boolean().map((v): RuleNode => ({ kind: 'const', value: v })) },
);
const ruleArb = ruleTrees(comparison);
/** A shorthand filter beside the expression, or none. */
const shorthand = fc.option(fc.constantFrom({ a: '1' }, { 'b[ne]': 'null' }, { 'tags[contains]': 'a' }), {
  nil: undefined,
});

/** Comparisons in a tree, which a filter bounds. */
const terms = (node: RuleNode): number =>
  node.kind === 'compare'
    ? 1
    : node.kind === 'not'
      ? terms(node.item)
      : 'items' in node
        ? node.items.reduce((n, item) => n + terms(item), 0)
        : 0;

/** A literal as filter text: strings single-quoted, their quotes and backslashes escaped. */
const text = (v: RuleValue) =>
  typeof v === 'string' ? `'${v.replace(/[\\']/g, (c) => `\\${c}`)}'` : JSON.stringify(v);

const print = (node: RuleNode) => printRule(node, text);

for (const kind of STORE_KINDS) {
  describe(`?filter= against the rules' evaluator (${kind.name})`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await kind.create();
      store = await openStore(db.url, catalog);
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('lists and counts exactly the records the expression holds for', async () => {
      const things = store.collection('things');
      const stored = await things.createMany(
        fc.sample(fields, { numRuns: 60, seed: 11 }).map((f) => JSON.stringify(f)),
      );
      const records = stored.map(asRule);
      const all = (await things.list({ where: [], sort: [], limit: 1000 })).length;
      assert.equal(all, records.length);
      // Trees that select some records but not all: the property is not met by answering all or none.
      let telling = 0;
      await fc.assert(
        fc.asyncProperty(
          ruleArb.filter((node) => terms(node) <= 20),
          shorthand,
          async (generated, extra) => {
            const node = JSON.parse(JSON.stringify(generated)) as RuleNode;
            const { query } = parseListQuery({ limit: 1000, filter: print(node), ...extra }, 64);
            const matching = ids(records.filter((record) => ruleMeaning(node, { auth: null, record })));
            assert.deepEqual(ids(records.filter((record) => ruleHolds(node, { auth: null, record }))), matching);
            // The shorthand alone, as the store lists it (its own tests hold it to JavaScript): ANDed.
            const alone = extra && new Set(ids(await things.list(parseListQuery({ limit: 1000, ...extra }, 64).query)));
            const expected = alone ? matching.filter((id) => alone.has(id)) : matching;
            assert.deepEqual(ids(await things.list(query)), expected);
            assert.equal(await things.count(query), expected.length);
            if (expected.length > 0 && expected.length < records.length) telling += 1;
          },
        ),
        { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 1), includeErrorInReport: true },
      );
      assert.ok(telling > RUNS / 4, `only ${telling} of ${RUNS} filters selected some records but not all`);
    });

    it('counts as costly as its shorthand does: an indexed equality in order is ordinary, an unindexed field or a left-over || is not', async () => {
      const things = store.collection('things');
      const costly = (raw: Record<string, string>) =>
        things.isCostly(parseListQuery({ limit: 5, sort: 'a', ...raw }, 64).query);
      assert.equal(await costly({ filter: 'a == 1' }), false);
      assert.equal(await costly({ filter: 'a == 1' }), await costly({ a: '1' }));
      assert.equal(await costly({ filter: 'b == 1' }), true);
      assert.equal(await costly({ filter: 'b == 1' }), await costly({ b: '1' }));
      assert.equal(await costly({ filter: 'a == 1 || a == 2' }), true);
    });
  });
}
