/**
 * The record-rule language read into trees (src/core/rules/rule-syntax.ts): what each form
 * parses to, which operator binds tighter, and that every mistake is one line naming the
 * schema file, the rule and the column, with the bounds on length and nesting.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../src/core/config-error.js';
import { MAX_RULE_DEPTH, MAX_RULE_LENGTH, parseRule, parseRules } from '../src/core/rules/rule-syntax.js';
import type { Operand, RuleNode, RuleOperation, RuleValue } from '../src/core/rules/rule-tree.js';

const SOURCE = 'schemas/shop/orders.schema.json';
const parse = (text: string, operation: RuleOperation = 'update') => parseRule(text, { source: SOURCE, operation });

const record = (...path: string[]): Operand => ({ kind: 'field', scope: 'record', path });
const auth = (...path: string[]): Operand => ({ kind: 'field', scope: 'auth', path });
const body = (...path: string[]): Operand => ({ kind: 'field', scope: 'body', path });
const lit = (value: RuleValue): Operand => ({ kind: 'literal', value });
const cmp = (left: Operand, op: '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in', right: Operand): RuleNode => ({
  kind: 'compare',
  op,
  left,
  right,
});
const bare = (operand: Operand): RuleNode => cmp(operand, '==', lit(true));

/** The message of the ConfigError `run` throws. */
function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `not a ConfigError: ${error}`);
    return error.message;
  }
  assert.fail('no error');
}

/** The column and text of a rule's error, after checking that the line names the file and the rule. */
function mistake(text: string, operation: RuleOperation = 'list'): { column: number; message: string } {
  const line = errorOf(() => parse(text, operation));
  const match = new RegExp(`^SCHEMAS: ${SOURCE}: x-rules\\.${operation}, column (\\d+): (.+)$`).exec(line);
  assert.ok(match, `not one line naming the file, the rule and the column: ${line}`);
  return { column: Number(match[1]), message: match[2] as string };
}

describe('rule syntax: trees', () => {
  it('reads the examples of the documentation', () => {
    assert.deepEqual(parse("ownerId == auth.id || auth.role == 'staff'"), {
      kind: 'or',
      items: [cmp(record('ownerId'), '==', auth('id')), cmp(auth('role'), '==', lit('staff'))],
    });
    assert.deepEqual(parse('true'), { kind: 'const', value: true });
    assert.deepEqual(parse('false'), { kind: 'const', value: false });
    assert.deepEqual(parse('body.role == null'), cmp(body('role'), '==', lit(null)));
    assert.deepEqual(parse("status in ['placed', 'paid'] && userId == auth.id", 'list'), {
      kind: 'and',
      items: [
        cmp(record('status'), 'in', { kind: 'list', items: ['placed', 'paid'] }),
        cmp(record('userId'), '==', auth('id')),
      ],
    });
    assert.deepEqual(parse('auth.id in memberIds', 'view'), cmp(auth('id'), 'in', record('memberIds')));
  });

  it('reads nested fields, system fields, literals and escapes', () => {
    assert.deepEqual(parse('address.city != "Oslo"'), cmp(record('address', 'city'), '!=', lit('Oslo')));
    assert.deepEqual(parse('id >= 10'), cmp(record('id'), '>=', lit(10)));
    assert.deepEqual(parse('createdAt < auth.since'), cmp(record('createdAt'), '<', auth('since')));
    assert.deepEqual(parse('price <= -1.5e3'), cmp(record('price'), '<=', lit(-1500)));
    assert.deepEqual(parse(String.raw`name == 'it\'s \u00e9\n\\'`), cmp(record('name'), '==', lit("it's é\n\\")));
    assert.deepEqual(parse(String.raw`name == "say \"hi\""`), cmp(record('name'), '==', lit('say "hi"')));
    assert.deepEqual(parse('tag in []'), cmp(record('tag'), 'in', { kind: 'list', items: [] }));
    assert.deepEqual(
      parse('x in [1, true, null, "a"]'),
      cmp(record('x'), 'in', { kind: 'list', items: [1, true, null, 'a'] }),
    );
    assert.deepEqual(parse(' \t a\n==\r\n1 '), cmp(record('a'), '==', lit(1)));
  });

  it('reads a field alone as == true, and ! of it', () => {
    assert.deepEqual(parse('auth.verified'), bare(auth('verified')));
    assert.deepEqual(parse('!archived'), { kind: 'not', item: bare(record('archived')) });
    assert.deepEqual(parse('!!archived'), { kind: 'not', item: { kind: 'not', item: bare(record('archived')) } });
  });

  it('binds ! tighter than &&, and && tighter than ||; parentheses group', () => {
    assert.deepEqual(parse('a || b && !c'), {
      kind: 'or',
      items: [bare(record('a')), { kind: 'and', items: [bare(record('b')), { kind: 'not', item: bare(record('c')) }] }],
    });
    assert.deepEqual(parse('a && b || c'), {
      kind: 'or',
      items: [{ kind: 'and', items: [bare(record('a')), bare(record('b'))] }, bare(record('c'))],
    });
    assert.deepEqual(parse('(a || b) && c'), {
      kind: 'and',
      items: [{ kind: 'or', items: [bare(record('a')), bare(record('b'))] }, bare(record('c'))],
    });
    assert.deepEqual(parse('!a == 1'), { kind: 'not', item: cmp(record('a'), '==', lit(1)) });
    assert.deepEqual(parse('!(a == 1 || b)'), {
      kind: 'not',
      item: { kind: 'or', items: [cmp(record('a'), '==', lit(1)), bare(record('b'))] },
    });
  });

  it("reads a create rule's bare fields as the body it would store", () => {
    assert.deepEqual(parse('ownerId == auth.id && body.role == null', 'create'), {
      kind: 'and',
      items: [cmp(body('ownerId'), '==', auth('id')), cmp(body('role'), '==', lit(null))],
    });
    // Two fields of the record to be made are both the body's: no filter is ever made of them.
    assert.deepEqual(parse('low < high', 'create'), cmp(body('low'), '<', body('high')));
  });

  it('takes a rule of the longest length and the deepest nesting', () => {
    const long = `a == '${'x'.repeat(MAX_RULE_LENGTH - 7)}'`;
    assert.equal(long.length, MAX_RULE_LENGTH);
    assert.equal(parse(long).kind, 'compare');
    const deep = `${'('.repeat(MAX_RULE_DEPTH)}a${')'.repeat(MAX_RULE_DEPTH)}`;
    assert.deepEqual(parse(deep), bare(record('a')));
    assert.equal(parse(`${'!'.repeat(MAX_RULE_DEPTH)}a`).kind, 'not');
  });
});

describe('rule syntax: mistakes name the file, the rule and the column', () => {
  it('points at the column of the mistake', () => {
    assert.equal(
      errorOf(() => parseRule('ownerId == ', { source: SOURCE, operation: 'list' })),
      `SCHEMAS: ${SOURCE}: x-rules.list, column 12: expected a value after "=="`,
    );
    assert.deepEqual(mistake('a = 1'), { column: 3, message: 'expected "==" (a single "=" is not an operator)' });
    assert.deepEqual(mistake('a == 1 & b'), { column: 8, message: 'expected "&&"' });
    assert.deepEqual(mistake('a == 1 || (b == 2'), {
      column: 18,
      message: 'expected ")" to close the "(" of column 11, not the end',
    });
    assert.deepEqual(mistake('a == 1)'), { column: 7, message: 'expected "&&", "||" or the end, not ")"' });
    assert.equal(mistake('').column, 1);
    assert.equal(mistake('a ==').column, 5);
    assert.equal(mistake('a == 1 &&').column, 10);
    assert.equal(mistake('a == b == c', 'create').column, 8);
    assert.match(mistake('a == b == c', 'create').message, /comparisons do not chain/);
  });

  it('refuses body.* where there is no body', () => {
    for (const operation of ['list', 'view', 'delete'] as const) {
      const { column, message } = mistake('auth.id != null && body.role == null', operation);
      assert.equal(column, 20);
      assert.match(message, /body\.\* is only in create and update rules/);
    }
    assert.deepEqual(parse('body.role == null', 'update'), cmp(body('role'), '==', lit(null)));
  });

  it('refuses a comparison of two record fields, so that every list rule is a filter', () => {
    const { column, message } = mistake('price > cost');
    assert.equal(column, 7);
    assert.match(message, /compares two fields of the record \(price and cost\)/);
    assert.equal(mistake('auth.id == 1 && status in tags', 'update').column, 24);
  });

  it('refuses field names that are not plain identifiers', () => {
    assert.equal(mistake('a.1b == 1').column, 3);
    assert.match(mistake('a.1b == 1').message, /"1b" is not a plain field name/);
    assert.deepEqual(mistake('a. == 1'), { column: 3, message: 'expected a field name after "."' });
    assert.equal(mistake('a-b == 1').column, 2);
    assert.equal(mistake('é == 1').column, 1);
    assert.equal(mistake('1a == 1').column, 2);
    assert.match(mistake('id.x == 1').message, /id has no fields inside it/);
    assert.match(mistake('auth == 1').message, /auth alone is no value/);
    assert.match(mistake('true.x == 1').message, /"true" is a keyword/);
  });

  it('refuses lists out of place, literals standing alone, and bad literals', () => {
    assert.deepEqual(mistake("a == ['x']"), { column: 6, message: 'a list may only follow "in"' });
    assert.deepEqual(mistake("['x'] in a"), { column: 1, message: 'a list may only follow "in"' });
    assert.equal(mistake("['x']").column, 1);
    assert.equal(mistake("a in 'x'").column, 6);
    assert.equal(mistake('a in [b]').column, 7);
    assert.equal(mistake('a in [1 2]').column, 9);
    assert.match(mistake('5').message, /expected a comparison after "5", not the end/);
    assert.equal(mistake("'x' && a").column, 5);
    assert.deepEqual(mistake("a == 'open"), { column: 6, message: 'this string has no closing quote' });
    assert.equal(mistake(String.raw`a == 'x\qy'`).column, 8);
    assert.equal(mistake(String.raw`a == '\u0000'`).column, 6);
    assert.equal(mistake(String.raw`a == '\ud800'`).column, 6);
    assert.match(mistake('a == 1e999').message, /out of range/);
    assert.match(mistake('a == 1.').message, /expected an operator after the number 1/);
    assert.match(mistake('a ~ 1').message, /unexpected character "~"/);
  });

  it('refuses a rule that is too long or nests too deep', () => {
    const long = `a == '${'x'.repeat(MAX_RULE_LENGTH - 6)}'`;
    assert.deepEqual(mistake(long), { column: MAX_RULE_LENGTH + 1, message: 'a rule is at most 2000 characters' });
    const deep = `${'('.repeat(MAX_RULE_DEPTH + 1)}a${')'.repeat(MAX_RULE_DEPTH + 1)}`;
    assert.deepEqual(mistake(deep), { column: MAX_RULE_DEPTH + 1, message: 'a rule nests at most 32 levels deep' });
    assert.equal(mistake(`${'!('.repeat(20)}a${')'.repeat(20)}`).column, 33);
  });
});

describe('rule syntax: x-rules', () => {
  it('parses each operation; none is no rules', () => {
    assert.deepEqual(parseRules(undefined, SOURCE), {});
    const rules = parseRules({ list: 'true', create: 'ownerId == auth.id', delete: 'false' }, SOURCE);
    assert.deepEqual(Object.keys(rules), ['list', 'create', 'delete']);
    assert.deepEqual(rules.create, cmp(body('ownerId'), '==', auth('id')));
  });

  it('refuses another shape, naming the file and the key', () => {
    assert.equal(
      errorOf(() => parseRules(['true'], SOURCE)),
      `SCHEMAS: ${SOURCE}: x-rules must be an object of rules by operation (list, view, create, update, delete)`,
    );
    assert.match(
      errorOf(() => parseRules('true', SOURCE)),
      /x-rules must be an object/,
    );
    assert.equal(
      errorOf(() => parseRules({ read: 'true' }, SOURCE)),
      `SCHEMAS: ${SOURCE}: x-rules.read is not an operation; use one of list, view, create, update, delete`,
    );
    assert.equal(
      errorOf(() => parseRules({ list: true }, SOURCE)),
      `SCHEMAS: ${SOURCE}: x-rules.list must be a string: the rule's text`,
    );
    assert.match(
      errorOf(() => parseRules(JSON.parse('{"__proto__": "true"}'), SOURCE)),
      /x-rules.__proto__ is not/,
    );
    assert.match(
      errorOf(() => parseRules({ view: 'a ==' }, SOURCE)),
      /x-rules\.view, column 5: /,
    );
  });
});
