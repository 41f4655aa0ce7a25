/**
 * The text of a record rule read into its tree (./rule-tree.ts). Written by hand, a
 * tokenizer (./rule-lexer.ts) and a recursive descent, because no maintained library
 * parses this small language into a tree we control, with errors that name the column;
 * it runs once per rule, at start, so its speed does not matter.
 *
 *   or         := and ("||" and)*
 *   and        := unary ("&&" unary)*
 *   unary      := "!" unary | "(" or ")" | comparison
 *   comparison := operand (("==" | "!=" | "<" | "<=" | ">" | ">=") operand | "in" (list | name))?
 *   list       := "[" (literal ("," literal)*)? "]"
 *
 * A field alone means `field == true`. What the tree may hold is bounded, so that every
 * walk of it is: {@link MAX_RULE_LENGTH} characters, {@link MAX_RULE_DEPTH} levels.
 */
import { ConfigError } from '../config-error.js';
import { isObject } from '../is-object.js';
import { isSystemField } from '../system-fields.js';
import { type Fail, type Token, tokenize } from './rule-lexer.js';
import {
  type CollectionRules,
  type Comparison,
  type Operand,
  RULE_OPERATIONS,
  type RuleNode,
  type RuleOperation,
  type RuleValue,
} from './rule-tree.js';

/** The longest text a rule may have. */
export const MAX_RULE_LENGTH = 2000;
/** The deepest nesting of parentheses and `!` a rule may have. */
export const MAX_RULE_DEPTH = 32;

const COMPARISONS: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=', 'in']);

/** Where a rule comes from, for its errors: the schema file, and the operation it is for. */
export interface RuleSource {
  readonly source: string;
  readonly operation: RuleOperation;
}

/** Reads a rule's text; a mistake throws a {@link ConfigError} naming the file, the rule and the column. */
export function parseRule(text: string, where: RuleSource): RuleNode {
  const fail: Fail = (column, message) => {
    throw new ConfigError(`SCHEMAS: ${where.source}: x-rules.${where.operation}, column ${column}: ${message}`);
  };
  return parseTree(text, where.operation, fail);
}

/**
 * Reads a list's `?filter=` in the same language, with the same bounds: only the record's
 * fields and literals, since a filter is the caller's own and has no `auth.*` or `body.*`
 * to read. A mistake calls `fail` with its column (a 400 naming it, for the caller).
 */
export function parseFilterExpression(text: string, fail: Fail): RuleNode {
  return parseTree(text, 'filter', fail);
}

function parseTree(text: string, operation: RuleOperation | 'filter', fail: Fail): RuleNode {
  const noun = operation === 'filter' ? 'a filter' : 'a rule';
  if (text.length > MAX_RULE_LENGTH) fail(MAX_RULE_LENGTH + 1, `${noun} is at most ${MAX_RULE_LENGTH} characters`);
  const tokens = tokenize(text, fail, operation === 'filter');
  let at = 0;
  const peek = (): Token => tokens[at] as Token;
  const next = (): Token => tokens[at++] as Token;
  const is = (token: Token, punct: string) => token.kind === 'punct' && token.punct === punct;
  const describe = (token: Token) => (token.kind === 'end' ? 'the end' : `"${token.text}"`);

  const items = (kind: 'and' | 'or', item: () => RuleNode): RuleNode => {
    const found = [item()];
    while (is(peek(), kind === 'and' ? '&&' : '||')) {
      next();
      found.push(item());
    }
    return found.length === 1 ? (found[0] as RuleNode) : { kind, items: found };
  };
  const or = (depth: number): RuleNode => items('or', () => items('and', () => unary(depth)));

  function unary(depth: number): RuleNode {
    const token = peek();
    if (!is(token, '!') && !is(token, '(')) return comparison();
    if (depth >= MAX_RULE_DEPTH) fail(token.column, `${noun} nests at most ${MAX_RULE_DEPTH} levels deep`);
    next();
    if (is(token, '!')) return { kind: 'not', item: unary(depth + 1) };
    const inside = or(depth + 1);
    const close = next();
    if (!is(close, ')')) {
      fail(close.column, `expected ")" to close the "(" of column ${token.column}, not ${describe(close)}`);
    }
    return inside;
  }

  function comparison(): RuleNode {
    const first = peek();
    const left = operand();
    const token = peek();
    if (token.kind !== 'punct' || !COMPARISONS.has(token.punct)) {
      // Alone: a field means `== true`; of literals only true and false stand alone.
      if (left.kind === 'field') return { kind: 'compare', op: '==', left, right: { kind: 'literal', value: true } };
      if (left.kind === 'literal' && typeof left.value === 'boolean') return { kind: 'const', value: left.value };
      if (left.kind === 'list') fail(first.column, 'a list may only follow "in"');
      return fail(token.column, `expected a comparison after ${describe(first)}, not ${describe(token)}`);
    }
    next();
    const op = token.punct as Comparison;
    const second = peek();
    if (second.kind === 'end' || (second.kind === 'punct' && second.punct !== '[')) {
      fail(second.column, `expected a value after "${op}"`);
    }
    const right = operand();
    if (left.kind === 'list') fail(first.column, 'a list may only follow "in"');
    if (op === 'in' && right.kind === 'literal') {
      fail(second.column, "expected a list ['a', 'b'] or a field after \"in\"");
    }
    if (op !== 'in' && right.kind === 'list') fail(second.column, 'a list may only follow "in"');
    if (left.kind === 'field' && left.scope === 'record' && right.kind === 'field' && right.scope === 'record') {
      fail(
        token.column,
        `compares two fields of the record (${left.path.join('.')} and ${right.path.join('.')}); compare a field ` +
          (operation === 'filter'
            ? 'with a value'
            : 'with a value, auth.* or body.*, so that a list rule stays a filter'),
      );
    }
    const after = peek();
    if (after.kind === 'punct' && COMPARISONS.has(after.punct)) {
      fail(after.column, `comparisons do not chain: join them with && or ||, not "${after.text}"`);
    }
    return { kind: 'compare', op, left, right };
  }

  function operand(): Operand {
    const token = next();
    if (token.kind === 'literal') return { kind: 'literal', value: token.value };
    if (token.kind === 'name') return field(token.path, token.column);
    if (is(token, '[')) return list(token);
    return fail(token.column, `expected a value, not ${describe(token)}`);
  }

  function list(open: Token): Operand {
    const values: RuleValue[] = [];
    if (is(peek(), ']')) {
      next();
      return { kind: 'list', items: values };
    }
    for (;;) {
      const token = next();
      if (token.kind !== 'literal') fail(token.column, `a list holds only literals, not ${describe(token)}`);
      values.push((token as Token & { kind: 'literal' }).value);
      const after = next();
      if (is(after, ']')) return { kind: 'list', items: values };
      if (!is(after, ',')) fail(after.column, `expected "," or "]" in the list of column ${open.column}`);
    }
  }

  function field(path: readonly string[], column: number): Operand {
    const [head, ...rest] = path as [string, ...string[]];
    if (operation === 'filter' && (head === 'auth' || head === 'body')) {
      fail(column, `${head}.* is not in a filter: it compares the record's fields with values`);
    }
    if (head === 'auth' || head === 'body') {
      if (rest.length === 0) fail(column, `${head} alone is no value: name one of its fields (${head}.id)`);
      if (head === 'body' && !WRITES.has(operation as RuleOperation)) {
        fail(column, `body.* is only in create and update rules: a ${operation} has no body`);
      }
      return { kind: 'field', scope: head, path: rest };
    }
    if (isSystemField(head) && rest.length > 0) {
      fail(column, `${head} has no fields inside it`);
    }
    // A create's record is the one it would make: its body.
    return { kind: 'field', scope: operation === 'create' ? 'body' : 'record', path };
  }

  const rule = or(0);
  const end = peek();
  if (end.kind !== 'end') fail(end.column, `expected "&&", "||" or the end, not ${describe(end)}`);
  return rule;
}

const WRITES: ReadonlySet<RuleOperation> = new Set(['create', 'update']);

/** Reads a schema's `x-rules` (undefined: none): an object of rule texts by operation, each parsed. */
export function parseRules(raw: unknown, source: string): CollectionRules {
  if (raw === undefined) return {};
  const operations = RULE_OPERATIONS.join(', ');
  if (!isObject(raw)) {
    throw new ConfigError(`SCHEMAS: ${source}: x-rules must be an object of rules by operation (${operations})`);
  }
  const rules: CollectionRules = {};
  for (const [key, text] of Object.entries(raw)) {
    if (!(RULE_OPERATIONS as readonly string[]).includes(key)) {
      throw new ConfigError(`SCHEMAS: ${source}: x-rules.${key} is not an operation; use one of ${operations}`);
    }
    if (typeof text !== 'string') {
      throw new ConfigError(`SCHEMAS: ${source}: x-rules.${key} must be a string: the rule's text`);
    }
    const operation = key as RuleOperation;
    rules[operation] = parseRule(text, { source, operation });
  }
  return rules;
}
