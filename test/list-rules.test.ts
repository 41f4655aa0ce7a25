/**
 * List rules in the store's query (src/records/rules/list-rule.ts), on both stores: random
 * rules over random records, with a random caller, list exactly the records the rule holds
 * for, read off its tree (ruleMeaning in test/helpers/rule-trees.ts), which the evaluator in
 * JavaScript (src/records/rules/filter-holds.ts) finds too, and count as many; then an owner rule
 * paged by keyset, a rule beside an ordinary filter and a search, and a rule's share in the
 * planner's verdict.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { parseRule } from '../src/core/rules/rule-syntax.js';
import type { Operand, RuleAuth, RuleNode, RuleValue } from '../src/core/rules/rule-tree.js';
import { ruleHolds } from '../src/records/rules/filter-holds.js';
import { listRuleFilter, withListRule } from '../src/records/rules/list-rule.js';
import { openStore } from '../src/store/open-store.js';
import type { ListQuery, Records, Store } from '../src/store/store.js';
import { catalogOf } from './helpers/catalog.js';
import { asRule, compare, ids, order, printRule, ruleMeaning, ruleTrees } from './helpers/rule-trees.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const catalog = catalogOf(['things', 'owned', 'orders', 'edges', 'strays'], {
  indexes: [{ collection: 'owned', path: ['ownerId'] }],
});

const SCALARS: RuleValue[] = [null, true, false, 0, 1, 2, -1, 1.5, 7, '', 'a', 'b', 'ab', 'B', 'é', '😀', '7', 'null'];
const scalar = fc.constantFrom(...SCALARS);
const value = fc.oneof(
  { weight: 6, arbitrary: scalar },
  {
    weight: 2,
    arbitrary: fc.array(
      fc.oneof(
        scalar,
        scalar.map((s) => [s]),
        scalar.map((x) => ({ x })),
      ),
      { maxLength: 3 },
    ),
  },
  { weight: 1, arbitrary: scalar.map((x) => ({ x, c: x })) },
);
const fields = fc.record(
  { a: value, b: value, ownerId: value, n: fc.oneof(value, fc.record({ c: scalar })), tags: value },
  { requiredKeys: [] },
);

const RECORD_PATHS = [['a'], ['b'], ['ownerId'], ['n', 'c'], ['tags'], ['id'], ['createdAt'], ['missing']];
const recordField = fc.constantFrom(...RECORD_PATHS).map((path): Operand => ({ kind: 'field', scope: 'record', path }));
const given = fc
  .constantFrom(['auth', 'id'], ['auth', 'role'], ['auth', 'groups'], ['auth', 'none'], ['body', 'a'], ['body', 'tags'])
  .map(([scope, ...path]): Operand => ({ kind: 'field', scope: scope as 'auth' | 'body', path }));
const constant = fc.oneof(
  scalar.map((v): Operand => ({ kind: 'literal', value: v })),
  fc.constantFrom<Operand>({ kind: 'literal', value: '2000' }, { kind: 'literal', value: 3 }),
  given,
);
const list = fc.array(scalar, { maxLength: 4 }).map((items): Operand => ({ kind: 'list', items }));
const withField = <T>(arbitrary: fc.Arbitrary<T>) => ({ weight: 4, arbitrary });
const comparison = fc.oneof(
  withField(fc.tuple(recordField, order, constant).map(([l, op, r]) => compare(l, op, r))),
  withField(fc.tuple(constant, order, recordField).map(([l, op, r]) => compare(l, op, r))),
  withField(fc.tuple(recordField, fc.oneof(list, given)).map(([l, r]) => compare(l, 'in', r))),
  withField(fc.tuple(constant, recordField).map(([l, r]) => compare(l, 'in', r))),
  withField(recordField.map((l) => compare(l, '==', { kind: 'literal', value: true }))),
  fc.tuple(constant, order, constant).map(([l, op, r]) => compare(l, op, r)),
  fc.tuple(constant, fc.oneof(list, given)).map(([l, r]) => compare(l, 'in', r)),
  fc.boolean().map((value): RuleNode => ({ kind: 'const', value })),
);
const ruleArb = ruleTrees(comparison);
/** A caller: signed in with some claims (any may be missing), or, one time in three, without credentials. */
const authArb = fc.option(
  fc.record(
    {
      id: scalar,
      role: fc.constantFrom('staff', 'user', 'a'),
      groups: fc.oneof(fc.array(scalar, { maxLength: 3 }), scalar),
    },
    { requiredKeys: [] },
  ),
  { freq: 3 },
);
const bodyArb = fc.option(fc.record({ a: scalar, tags: fc.array(scalar, { maxLength: 3 }) }), { nil: undefined });

const print = (node: RuleNode) => printRule(node);
const listRule = (text: string) => parseRule(text, { source: 'test', operation: 'list' });

/** Every page of `query` (keyset, `limit` a page), in order. */
async function allPages(records: Records, query: ListQuery): Promise<number[]> {
  const found: number[] = [];
  let at: ListQuery = query;
  for (;;) {
    const page = await records.list(at);
    found.push(...page.map((r) => r.id));
    const last = page.at(-1);
    if (page.length < query.limit || !last) return found;
    at = { ...query, after: last.position };
  }
}

for (const kind of STORE_KINDS) {
  describe(`list rules as queries (${kind.name})`, () => {
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

    it('lists and counts exactly the records the rule holds for', async () => {
      const things = store.collection('things');
      const stored = await things.createMany(fc.sample(fields, { numRuns: 60, seed: 7 }).map((f) => JSON.stringify(f)));
      const records = stored.map(asRule);
      await fc.assert(
        fc.asyncProperty(ruleArb, authArb, bodyArb, async (generated, auth, body) => {
          // fast-check's records have no prototype; the parser's trees are plain objects.
          const node = JSON.parse(JSON.stringify(generated)) as RuleNode;
          assert.deepEqual(parseRule(print(node), { source: 'test', operation: 'update' }), node);
          const context = { auth: auth as RuleAuth | null, ...(body && { body }) };
          const expected = ids(records.filter((record) => ruleMeaning(node, { ...context, record })));
          assert.deepEqual(ids(records.filter((record) => ruleHolds(node, { ...context, record }))), expected);
          const filter = listRuleFilter(node, context.auth, body);
          if (typeof filter === 'boolean') {
            assert.deepEqual(expected, filter ? ids(records) : []);
            return;
          }
          const query = withListRule({ where: [], sort: [], limit: 1000 }, filter);
          assert.deepEqual(ids(await things.list(query)), expected);
          assert.equal(await things.count(query), expected.length);
        }),
        { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 1), includeErrorInReport: true },
      );
    });

    it('lists nothing to a caller without credentials by a comparison with auth.*, records without the field included', async () => {
      const strays = store.collection('strays');
      const made = await strays.createMany(['{}', '{"ownerId":null}', '{"ownerId":[null]}', '{"ownerId":7}']);
      const records = made.map(asRule);
      const authSide = fc
        .constantFrom(['id'], ['role'], ['groups'])
        .map((path): Operand => ({ kind: 'field', scope: 'auth', path }));
      const owner: Operand = { kind: 'field', scope: 'record', path: ['ownerId'] };
      const sides = fc.oneof(
        fc.tuple(order, authSide).map(([op, side]) => compare(owner, op, side)),
        fc.tuple(order, authSide).map(([op, side]) => compare(side, op, owner)),
        authSide.map((side) => compare(side, 'in', owner)),
        authSide.map((side) => compare(owner, 'in', side)),
        fc.tuple(authSide, order, constant).map(([side, op, other]) => compare(side, op, other)),
      );
      await fc.assert(
        fc.asyncProperty(sides, async (node) => {
          const filter = listRuleFilter(node, null);
          assert.equal(filter, false, JSON.stringify(node));
          assert.equal(listRuleFilter({ kind: 'not', item: node }, null), true, JSON.stringify(node));
          assert.ok(records.every((record) => !ruleHolds(node, { auth: null, record })));
        }),
        { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 1), includeErrorInReport: true },
      );
      const rule = listRule('ownerId == auth.id');
      const asOwner = listRuleFilter(rule, { id: 7 });
      assert.ok(typeof asOwner === 'object');
      const listed = await strays.list(withListRule({ where: [], sort: [], limit: 100 }, asOwner));
      assert.deepEqual(ids(listed), ids(records.filter((record) => record.ownerId === 7)));
    });

    it('binds only what the stores can: id bounds, text no record holds, long lists', async () => {
      const edges = store.collection('edges');
      const texts = ['a', 'a b', 'b', '', 'é', '\uffff', '😀'];
      const made = await edges.createMany(
        texts.map((name, i) => JSON.stringify({ name, tags: i % 2 ? [name, i] : name, n: i })),
      );
      const records = made.map(asRule);
      const auths: RuleAuth[] = [
        { id: 'a\u0000b', n: 1.5 },
        { id: '\ud800', n: -5 },
        { id: '😀', n: 1e20 },
        { id: 'a', n: 2, many: Array.from({ length: 250 }, (_, i) => i % 7) },
      ];
      const rules = [
        'name < auth.id',
        'name >= auth.id',
        'name > auth.id',
        'name <= auth.id',
        'name == auth.id',
        'name != auth.id',
        "name in ['a', 'é', null]",
        'auth.id in tags',
        'id > auth.n',
        'id <= auth.n',
        'id < auth.n',
        'id >= auth.n',
        'id == auth.n',
        'id != auth.n',
        'id == 1.5',
        "id == '1'",
        'createdAt == 5',
        'createdAt != 5',
        'createdAt > auth.id',
        'n in auth.many',
        'auth.n in tags',
        "!(auth.id in tags) && name != 'b'",
      ];
      for (const text of rules) {
        const node = listRule(text);
        for (const auth of auths) {
          const expected = ids(records.filter((record) => ruleMeaning(node, { auth, record })));
          assert.deepEqual(ids(records.filter((record) => ruleHolds(node, { auth, record }))), expected, text);
          const filter = listRuleFilter(node, auth);
          const found =
            typeof filter === 'boolean'
              ? filter
                ? ids(records)
                : []
              : ids(await edges.list(withListRule({ where: [], sort: [], limit: 100 }, filter)));
          assert.deepEqual(found, expected, `${text} for ${JSON.stringify(auth)}`);
        }
      }
      const many = listRuleFilter(listRule('n in auth.many'), { many: Array.from({ length: 250 }, (_, i) => i) });
      assert.ok(typeof many === 'object' && many.rule && 'or' in many.rule && many.rule.or.length === 3);
    });

    it('pages an owner rule by keyset, as the filter ownerId=7 would', async () => {
      const owned = store.collection('owned');
      const made = await owned.createMany(
        Array.from({ length: 30 }, (_, i) =>
          JSON.stringify({ ownerId: i % 3 === 0 ? 7 : 8, n: i % 5, shared: i % 4 === 0 }),
        ),
      );
      const rule = listRule("ownerId == auth.id || auth.role == 'staff'");
      assert.equal(listRuleFilter(rule, { id: 1, role: 'staff' }), true);
      // Without credentials, no record is the caller's, not even one without an owner.
      assert.equal(listRuleFilter(listRule('auth.id == ownerId'), null), false);
      assert.equal(listRuleFilter(listRule('ownerId != auth.id'), null), false);
      assert.equal(listRuleFilter(listRule('!(auth.id == ownerId)'), null), true);
      const filter = listRuleFilter(rule, { id: 7, role: 'user' });
      assert.deepEqual(filter, { where: [{ field: { path: ['ownerId'] }, op: 'eq', value: 7 }] });
      assert.ok(typeof filter === 'object');
      const mine = made.filter((r) => JSON.parse(r.data).ownerId === 7);
      const byId = withListRule({ where: [], sort: [], limit: 4 }, filter);
      assert.deepEqual(await allPages(owned, byId), ids(mine));
      const plain = { where: [{ field: { path: ['ownerId'] }, op: 'eq' as const, value: 8 }], sort: [], limit: 4 };
      assert.equal(await owned.isCostly(byId), await owned.isCostly(plain));
      const byN = { ...byId, sort: [{ field: { path: ['n'] }, descending: true }] };
      const inOrder = [...mine].sort((x, y) => JSON.parse(y.data).n - JSON.parse(x.data).n || y.id - x.id);
      assert.deepEqual(
        await allPages(owned, byN),
        inOrder.map((r) => r.id),
      );
      assert.equal(await owned.count(byId), mine.length);
    });

    it('pages a rule that is not all-must-hold, and counts only what it lets through', async () => {
      const owned = store.collection('owned');
      const rule = listRule('ownerId == auth.id || shared');
      const filter = listRuleFilter(rule, { id: 8 });
      assert.deepEqual(filter, {
        where: [],
        rule: {
          or: [
            { field: { path: ['ownerId'] }, op: 'eq', value: 8 },
            { field: { path: ['shared'] }, op: 'eq', value: true },
          ],
        },
      });
      assert.ok(typeof filter === 'object');
      const all = (await owned.list({ where: [], sort: [], limit: 1000 })).map(asRule);
      const expected = all.filter((r) => ruleHolds(rule, { auth: { id: 8 }, record: r }));
      const query = withListRule(
        { where: [], sort: [{ field: { path: ['n'] }, descending: false }], limit: 3 },
        filter,
      );
      const inOrder = [...expected].sort((x, y) => (x.n as number) - (y.n as number) || x.id - y.id);
      assert.deepEqual(
        await allPages(owned, query),
        inOrder.map((r) => r.id),
      );
      assert.equal(await owned.count(query), expected.length);
      assert.ok(expected.length < all.length && expected.length > 0);
    });

    it('keeps a verdict of its own for a rule: an indexed page is ordinary, the same page under a rule tree is not', async () => {
      const owned = store.collection('owned');
      const where = [{ field: { path: ['ownerId'] }, op: 'eq' as const, value: 7 }];
      const sort = [{ field: { path: ['ownerId'] }, descending: false }];
      assert.equal(await owned.isCostly({ where, sort, limit: 5 }), false);
      const shared = { field: { path: ['shared'] }, op: 'eq' as const, value: true };
      const rule = { or: [shared, { field: { path: ['n'] }, op: 'eq' as const, value: 1 }] };
      assert.equal(await owned.isCostly({ where, sort, limit: 5, rule }), true);
      assert.equal(await owned.isCostly({ where, sort, limit: 5, rule: { not: shared } }), true);
    });

    it('narrows an ordinary filter and a search', async () => {
      const orders = store.collection('orders');
      const statuses = ['placed', 'paid', 'sent'];
      await orders.createMany(
        Array.from({ length: 36 }, (_, i) =>
          JSON.stringify({
            userId: i % 2 === 0 ? 3 : 4,
            status: statuses[i % 3],
            price: i % 10,
            name: i % 4 === 0 ? `Red KETTLE ${i}` : `Mug ${i}`,
          }),
        ),
      );
      const rule = listRule("status in ['placed', 'paid'] && userId == auth.id");
      const filter = listRuleFilter(rule, { id: 3 });
      assert.ok(typeof filter === 'object' && filter.rule === undefined && filter.where.length === 2);
      const base: ListQuery = {
        where: [{ field: { path: ['price'] }, op: 'gt', value: 5 }],
        search: 'kettle',
        sort: [],
        limit: 2,
      };
      const all = (await orders.list({ where: [], sort: [], limit: 1000 })).map(asRule);
      /** What the ordinary filter and the search ask, beside the rule. */
      const asked = (r: Record<string, unknown>) =>
        (r.price as number) > 5 && (r.name as string).toLowerCase().includes('kettle');
      const expected = all.filter((r) => ruleHolds(rule, { auth: { id: 3 }, record: r }) && asked(r));
      assert.ok(expected.length > 0 && expected.length < all.length);
      const query = withListRule(base, filter);
      assert.deepEqual(await allPages(orders, query), ids(expected));
      assert.equal(await orders.count(query), expected.length);

      const either = listRule("userId == auth.id || status == 'sent'");
      const tree = listRuleFilter(either, { id: 3 });
      assert.ok(typeof tree === 'object' && tree.rule !== undefined);
      const wanted = all.filter((r) => ruleHolds(either, { auth: { id: 3 }, record: r }) && asked(r));
      assert.deepEqual(await allPages(orders, withListRule(base, tree)), ids(wanted));
      assert.equal(await orders.count(withListRule(base, tree)), wanted.length);
    });
  });
}
