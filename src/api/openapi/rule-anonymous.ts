/**
 * Whether a record rule can hold for a caller with no credential: what decides if the
 * document lists anonymous access (`{}`) beside the schemes on a ruled operation. Such a
 * caller's `auth.*` are all null (src/records/rules/rule-eval.ts); what the record or the
 * body hold is unknown here, so the rule is read in three values: true, false, or either.
 * A field the record always has (a system field, or one its schema requires and types
 * without null) is known not to be null, so `userId == auth.id` never holds without one.
 */
import { type Collection, SYSTEM_FIELDS } from '../../core/collection.js';
import type { Operand, RuleNode, RuleOperation } from '../../core/rules/rule-tree.js';
import { comparisonHolds } from '../../records/rules/rule-eval.js';

type Outcome = boolean | 'either';

/** A value the rule reads: known, unknown, or unknown but never null (a record's system fields). */
type Value = { known: unknown } | 'unknown' | 'present';

const SYSTEM: ReadonlySet<string> = new Set(SYSTEM_FIELDS);

/** Whether an operand names a field that is never null where the rule reads it. */
type Present = (operand: Extract<Operand, { kind: 'field' }>) => boolean;

/** Whether some record or body lets a caller without a credential pass `collection`'s rule for `operation`. */
export function mayAdmitAnonymous(collection: Collection, operation: RuleOperation): boolean {
  const rule = collection.rules[operation];
  return rule ? outcome(rule, presentIn(collection, operation)) !== false : true;
}

/**
 * The fields a rule reads that are never null: the record's system fields, and those its
 * schema requires and types without null, in the record (and a create's body, which must
 * pass the schema to be created; a change's body is a patch, which need hold none).
 */
function presentIn(collection: Collection, operation: RuleOperation): Present {
  const document = collection.schema?.document ?? {};
  const properties = (document.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(document.required) ? (document.required as unknown[]) : [];
  const nonNull = new Set(
    required.filter((name): name is string => {
      const type = typeof name === 'string' ? properties[name]?.type : undefined;
      return typeof type === 'string' ? type !== 'null' : Array.isArray(type) && !type.includes('null');
    }),
  );
  return ({ scope, path }) => {
    const [head, ...rest] = path;
    if (head === undefined || rest.length > 0) return false;
    if (scope === 'record') return SYSTEM.has(head) || nonNull.has(head);
    return scope === 'body' && operation === 'create' && nonNull.has(head);
  };
}

function outcome(node: RuleNode, present: Present): Outcome {
  switch (node.kind) {
    case 'const':
      return node.value;
    case 'not': {
      const inner = outcome(node.item, present);
      return inner === 'either' ? inner : !inner;
    }
    case 'and':
    case 'or': {
      // `and` is false once one item is, `or` true once one is; else either, unless all agree.
      const decisive = node.kind === 'or';
      const items = node.items.map((item) => outcome(item, present));
      if (items.includes(decisive)) return decisive;
      return items.includes('either') ? 'either' : !decisive;
    }
    case 'compare':
      return comparison(node.op, operandValue(node.left, present), operandValue(node.right, present));
  }
}

function comparison(op: Extract<RuleNode, { kind: 'compare' }>['op'], left: Value, right: Value): Outcome {
  if (typeof left === 'object' && typeof right === 'object') return comparisonHolds(op, left.known, right.known);
  // `x in auth.roles`: nothing is in a list that is not there.
  if (op === 'in' && typeof right === 'object' && !Array.isArray(right.known)) return false;
  // `id == auth.id`: the field is never null, and an anonymous auth.id is.
  const nullAgainstPresent =
    (left === 'present' && typeof right === 'object' && right.known === null) ||
    (right === 'present' && typeof left === 'object' && left.known === null);
  if (nullAgainstPresent && (op === '==' || op === '!=')) return op === '!=';
  return 'either';
}

function operandValue(operand: Operand, present: Present): Value {
  if (operand.kind === 'literal') return { known: operand.value };
  if (operand.kind === 'list') return { known: operand.items };
  if (operand.scope === 'auth') return { known: null };
  return present(operand) ? 'present' : 'unknown';
}
