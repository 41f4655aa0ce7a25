/**
 * What a record rule's comparisons mean (src/core/rules/rule-tree.ts): an operand's value
 * read from the caller's claims, the record or a write's body, and a comparison decided for
 * values in hand. Every comparison is the filter operators' own
 * (src/store/filter-operators.ts), so a rule means here what it means in SQL. A whole rule
 * is compiled into conditions (./list-rule.ts), which ./filter-holds.ts evaluates for one
 * record and the SQL core for a list.
 */
import { isObject } from '../../core/is-object.js';
import type { Comparison, Operand, RuleAuth } from '../../core/rules/rule-tree.js';
import { FILTER_OPERATORS, type JsonScalar } from '../../store/filter-operators.js';

/**
 * What a rule is evaluated against; `auth` is null for a caller without credentials, for
 * whom every comparison with an `auth.*` side is false (see {@link callerless}).
 */
export interface RuleContext {
  readonly auth: RuleAuth | null;
  readonly record?: object;
  readonly body?: object;
}

/** The filter operator of each comparison but `in`. */
export const OPERATOR_OF = { '==': 'eq', '!=': 'ne', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' } as const;

/** A comparison with its sides swapped: `5 < price` is `price > 5`. */
export const SWAPPED = { '==': '==', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

/**
 * Whether a comparison is false before any value is read: it has an `auth.*` side and the
 * caller no credentials, so there is nothing of its own to compare, whatever the operator
 * (`!=` included). Read as null, `userId == auth.id` would hold for every record without a
 * `userId`, and `auth.id in memberIds` for one whose list holds a null. `!` of it holds:
 * `!(auth.id != null)` is how a rule says "not signed in".
 */
export function callerless(node: { readonly left: Operand; readonly right: Operand }, context: RuleContext): boolean {
  return context.auth === null && (readsAuth(node.left) || readsAuth(node.right));
}

function readsAuth(operand: Operand): boolean {
  return operand.kind === 'field' && operand.scope === 'auth';
}

/** An operand's value: a literal's, a list's items, or the field's (undefined when missing). */
export function operandValue(operand: Operand, context: RuleContext): unknown {
  if (operand.kind === 'literal') return operand.value;
  if (operand.kind === 'list') return operand.items;
  const from = operand.scope === 'auth' ? context.auth : operand.scope === 'body' ? context.body : context.record;
  return valueAt(from, operand.path);
}

/**
 * The value at `path` in a parsed object: own fields of objects only (never an array's
 * `length`, nor anything a prototype holds), undefined where it is missing.
 */
export function valueAt(from: unknown, path: readonly string[]): unknown {
  let value = from;
  for (const segment of path) {
    if (!isObject(value) || !Object.hasOwn(value, segment)) return undefined;
    value = value[segment];
  }
  return value;
}

/**
 * Whether `left op right` holds for values read already. A missing value is null; an array
 * or object equals nothing and orders against nothing. `in` asks whether `right` (a list's
 * items, or a field holding an array) has an item equal to `left`.
 */
export function comparisonHolds(op: Comparison, left: unknown, right: unknown): boolean {
  const [a, b] = [left ?? null, right ?? null];
  if (op === 'in') return Array.isArray(b) && isScalar(a) && FILTER_OPERATORS.contains.holds(b, a);
  if (isScalar(b)) return scalarHolds(OPERATOR_OF[op], a, b);
  if (isScalar(a)) return scalarHolds(OPERATOR_OF[SWAPPED[op]], b, a);
  return op === '!=';
}

function scalarHolds(op: (typeof OPERATOR_OF)[keyof typeof OPERATOR_OF], value: unknown, wanted: JsonScalar): boolean {
  const { holds } = FILTER_OPERATORS[op] as { holds(value: unknown, wanted: JsonScalar): boolean };
  return holds(value, wanted);
}

export function isScalar(value: unknown): value is JsonScalar {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
