/**
 * Record rules evaluated in JavaScript (src/records/rules/filter-holds.ts): typed comparisons
 * as the filter operators make them, null and missing fields, `in` with a list and with a
 * field holding an array, a field alone as `== true`, and callers without credentials, for
 * whom no comparison with `auth.*` holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRule } from '../src/core/rules/rule-syntax.js';
import type { RuleAuth, RuleOperation } from '../src/core/rules/rule-tree.js';
import { ruleHolds } from '../src/records/rules/filter-holds.js';

interface Context {
  auth?: RuleAuth | null;
  record?: object;
  body?: object;
}

const holds = (text: string, { auth = null, ...rest }: Context = {}, operation: RuleOperation = 'update') =>
  ruleHolds(parseRule(text, { source: 'test', operation }), { auth, ...rest });

/** Each rule in `cases` holds (true) or not (false) for `context`. */
function table(context: Context, cases: Record<string, boolean>): void {
  for (const [text, expected] of Object.entries(cases)) {
    assert.equal(holds(text, context), expected, `${text} for ${JSON.stringify(context)}`);
  }
}

describe('rule evaluation', () => {
  it('compares typed: numbers with numbers, strings with strings, booleans with booleans', () => {
    table(
      { record: { n: 5, s: '5', b: true, t: 'b' } },
      {
        'n == 5': true,
        "n == '5'": false,
        's == 5': false,
        "s == '5'": true,
        'n != "5"': true,
        'b == true': true,
        'b == 1': false,
        'n > 4.5': true,
        'n >= 5': true,
        'n < 5': false,
        '4 < n': true,
        '6 <= n': false,
        'n > "4"': false,
        'n < "9"': false,
        "t > 'a'": true,
        "t < 'ab'": false,
        "'ab' < t": true,
        'b > false': true,
        'b > 0': false,
      },
    );
  });

  it('orders strings by code point', () => {
    table(
      { record: { s: 'é', emoji: '😀', upper: 'Z' } },
      { "s > 'z'": true, "upper < 'a'": true, "emoji > '\uffff'": true, "emoji > 'é'": true },
    );
  });

  it('takes null and missing alike for == null, and orders neither', () => {
    table(
      { record: { gone: null, n: 0, nested: { a: 1 } } },
      {
        'gone == null': true,
        'missing == null': true,
        'null == missing': true,
        'n == null': false,
        'gone != null': false,
        'missing != null': false,
        'n != null': true,
        'gone < 1': false,
        'gone >= 1': false,
        'missing <= "a"': false,
        'n >= null': false,
        'n <= null': false,
        'nested.a == 1': true,
        'nested.b == null': true,
        'n.deeper == null': true,
        'missing.deeper == null': true,
      },
    );
  });

  it('equals no array or object, and orders none', () => {
    table(
      { record: { list: [1], obj: { a: 1 } }, body: { list: [1], obj: { a: 1 } } },
      {
        'list == 1': false,
        'list != 1': true,
        'list == null': false,
        'list != null': true,
        'obj > 0': false,
        'body.obj == obj': false,
        'body.obj != obj': true,
        'body.list < list': false,
      },
    );
  });

  it('reads own fields only, never an array length or a prototype', () => {
    table(
      { record: { list: [1, 2], text: 'abc' } },
      {
        'list.length == 2': false,
        'text.length == 3': false,
        'constructor == null': true,
        '__proto__ == null': true,
        'toString == null': true,
      },
    );
    assert.equal(holds('__proto__.x == 1', { record: JSON.parse('{"__proto__": {"x": 1}}') }), true);
  });

  it('finds a value in a list: an item equal to it, typed', () => {
    table(
      { record: { status: 'paid', n: 2, gone: null } },
      {
        "status in ['placed', 'paid']": true,
        "status in ['placed']": false,
        'status in []': false,
        "n in ['2']": false,
        'n in [1, 2]': true,
        'gone in [null]': true,
        'missing in [null]': true,
        'missing in [1]': false,
      },
    );
  });

  it('finds a value in a field holding an array: element equality, never text', () => {
    const record = { memberIds: [7, 'u8', null, true, [9], { id: 10 }], name: 'u8 and 7', count: 7 };
    table(
      { record, auth: { id: 7, role: 'u8', flag: true, gone: null } },
      {
        'auth.id in memberIds': true,
        'auth.role in memberIds': true,
        'auth.flag in memberIds': true,
        'auth.gone in memberIds': true,
        'auth.missing in memberIds': true,
        "'7' in memberIds": false,
        '9 in memberIds': false,
        '10 in memberIds': false,
        'auth.id in name': false,
        "'u8' in name": false,
        'auth.id in count': false,
        'auth.id in missing': false,
      },
    );
    table(
      { record: { tags: ['a'] }, auth: { groups: ['a', 'b'], one: 'a' } },
      {
        'tags in auth.groups': false,
        'auth.one in auth.groups': true,
        'auth.groups in auth.groups': false,
      },
    );
    table(
      { record: { role: 'b' }, auth: { groups: ['a', 'b'], one: 'b' } },
      {
        'role in auth.groups': true,
        'role in auth.one': false,
        'missing in auth.groups': false,
      },
    );
  });

  it('takes a field alone as == true', () => {
    table(
      { record: { on: true, one: 1, text: 'true' }, auth: { verified: true } },
      {
        on: true,
        '!on': false,
        one: false,
        '!one': true,
        text: false,
        missing: false,
        '!missing': true,
        'auth.verified': true,
      },
    );
  });

  it('holds no comparison with auth.* for a caller without credentials, whatever the operator', () => {
    table(
      { auth: null, record: { ownerId: 7, public: true } },
      {
        'ownerId == auth.id': false,
        'auth.id == null': false,
        'auth.role != null': false,
        "public || auth.role == 'staff'": true,
        'auth.verified': false,
        '!(auth.id != null)': true,
      },
    );
    // A record without the field, or with null or a null in its list, matches no one's missing id.
    for (const record of [{}, { userId: null, memberIds: [null] }]) {
      table(
        { auth: null, record, body: {} },
        {
          'userId == auth.id': false,
          'auth.id == userId': false,
          'userId != auth.id': false,
          'userId <= auth.id': false,
          'userId >= auth.id': false,
          'userId < auth.id': false,
          'auth.id in memberIds': false,
          "auth.role in ['staff', null]": false,
          'body.userId == auth.id': false,
          'auth.id == auth.role': false,
          '!(userId == auth.id)': true,
          'userId == null': true,
        },
      );
    }
  });

  it('reads a claim a signed-in caller lacks as null, and "signed in" as auth.id != null', () => {
    table(
      { auth: { id: 4 }, record: { userId: null } },
      {
        'auth.role == null': true,
        'auth.role != null': false,
        'auth.id != null': true,
        'auth.id == null': false,
      },
    );
  });

  it('decides the examples of the documentation', () => {
    const owner = "ownerId == auth.id || auth.role == 'staff'";
    assert.equal(holds(owner, { auth: { id: 7, role: 'user' }, record: { ownerId: 7 } }), true);
    assert.equal(holds(owner, { auth: { id: 8, role: 'user' }, record: { ownerId: 7 } }), false);
    assert.equal(holds(owner, { auth: { id: 8, role: 'staff' }, record: { ownerId: 7 } }), true);
    assert.equal(holds(owner, { auth: { id: '7', role: 'user' }, record: { ownerId: 7 } }), false);
    const placed = "status in ['placed', 'paid'] && userId == auth.id";
    assert.equal(holds(placed, { auth: { id: 3 }, record: { status: 'paid', userId: 3 } }), true);
    assert.equal(holds(placed, { auth: { id: 3 }, record: { status: 'sent', userId: 3 } }), false);
    assert.equal(holds('body.role == null', { auth: { id: 3 }, body: { name: 'x' } }), true);
    assert.equal(holds('body.role == null', { auth: { id: 3 }, body: { role: 'admin' } }), false);
    assert.equal(holds('!(a == 1 || b == 2) && c != 3', { record: { a: 0, b: 0, c: 0 } }), true);
  });

  it("reads a create rule's fields from the body", () => {
    const create = (body: object) =>
      holds('ownerId == auth.id && role == null', { auth: { id: 4 }, record: { ownerId: 4 }, body }, 'create');
    assert.equal(create({ ownerId: 4 }), true);
    assert.equal(create({ ownerId: 4, role: 'admin' }), false);
    assert.equal(create({}), false);
  });

  it('keeps the system fields as typed as the rest', () => {
    table(
      { record: { id: 12, createdAt: '2024-01-01T00:00:00.000Z' } },
      {
        'id == 12': true,
        "id == '12'": false,
        'id > 11.5': true,
        "createdAt < '2025'": true,
        'createdAt < 2025': false,
      },
    );
  });
});
