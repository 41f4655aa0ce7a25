/**
 * A list rule as part of the list's query: every `auth.*` and `body.*` is put in as its value
 * and whatever that decides is folded away (`auth.role == 'staff'` is true or false), so
 * `ownerId == auth.id || auth.role == 'staff'` is no condition for staff and `ownerId eq 7`
 * for account 7. What must all hold goes in the query's `where`, where the planner, the
 * indexes and keyset paging treat it as the filter `?ownerId=7`; the rest is the query's
 * `rule`, a tree of conditions. A rule for one record (a view, an update) is compiled the
 * same way and what is left evaluated in JavaScript (./filter-holds.ts), so a listed record
 * is one the rule holds for, and the other way round. A comparison of values in hand is
 * decided by ./rule-eval.ts (one with `auth.*` is false for a caller without credentials).
 */

import type { Comparison, Operand, RuleAuth, RuleNode } from '../../core/rules/rule-tree.js';
import { isSystemField } from '../../core/system-fields.js';
import { textFault } from '../../core/text-faults.js';
import {
  type Condition,
  type FieldRef,
  type FilterOp,
  type JsonScalar,
  type ListQuery,
  MAX_IN_VALUES,
  type RuleFilter,
} from '../../store/store.js';
import { idBound } from '../query-terms.js';
import {
  callerless,
  comparisonHolds,
  isScalar,
  OPERATOR_OF,
  operandValue,
  type RuleContext,
  SWAPPED,
} from './rule-eval.js';

/** No record may be listed (false), every one may (true), or those meeting these conditions. */
export type ListRule = boolean | { readonly where: readonly Condition[]; readonly rule?: RuleFilter };

/** What a rule leaves once its values are in: decided, or a tree of conditions. */
export type Residue = boolean | RuleFilter;

/** `node` for a caller (`auth` null: anonymous) and, on a write, its body, in the store's terms. */
export function listRuleFilter(node: RuleNode, auth: RuleAuth | null, body?: object): ListRule {
  const residue = compileRule(node, { auth, ...(body && { body }) });
  if (typeof residue === 'boolean') return residue;
  const items = 'and' in residue ? residue.and : [residue];
  const where = items.filter(isCondition);
  const rest = items.filter((item) => !isCondition(item));
  if (rest.length === 0) return { where };
  return { where, rule: rest.length === 1 ? (rest[0] as RuleFilter) : { and: rest } };
}

/** `query` narrowed by a rule that is neither true nor false: its conditions added to the query's. */
export function withListRule(query: ListQuery, rule: Exclude<ListRule, boolean>): ListQuery {
  const both = query.rule && rule.rule ? { and: [query.rule, rule.rule] } : (query.rule ?? rule.rule);
  return { ...query, where: [...query.where, ...rule.where], ...(both && { rule: both }) };
}

/**
 * `node` with its caller's and body's values put in and folded (the record's fields are
 * left as conditions): decided, or the tree of conditions both SQL and JavaScript
 * (./filter-holds.ts) evaluate. Its recursion is as deep as the tree, which the parser bounds.
 */
export function compileRule(node: RuleNode, values: RuleContext): Residue {
  switch (node.kind) {
    case 'const':
      return node.value;
    case 'not':
      return negate(compileRule(node.item, values));
    case 'and':
    case 'or': {
      const decisive = node.kind === 'or';
      const kept: RuleFilter[] = [];
      for (const item of node.items) {
        const residue = compileRule(item, values);
        if (residue === decisive) return decisive;
        if (typeof residue === 'boolean') continue;
        const nested = decisive ? 'or' in residue && residue.or : 'and' in residue && residue.and;
        kept.push(...(nested || [residue]));
      }
      if (kept.length <= 1) return kept[0] ?? !decisive;
      return decisive ? { or: kept } : { and: kept };
    }
    case 'compare':
      return callerless(node, values) ? false : compare(node.op, node.left, node.right, values);
  }
}

function negate(residue: Residue): Residue {
  if (typeof residue === 'boolean') return !residue;
  if ('not' in residue) return residue.not;
  if ('field' in residue && (residue.op === 'eq' || residue.op === 'ne')) {
    return { ...residue, op: residue.op === 'eq' ? 'ne' : 'eq' };
  }
  return { not: residue };
}

function compare(op: Comparison, left: Operand, right: Operand, values: RuleContext): Residue {
  const field = (operand: Operand) => (operand.kind === 'field' && operand.scope === 'record' ? operand : undefined);
  const [recordLeft, recordRight] = [field(left), field(right)];
  if (recordLeft && recordRight) throw new Error('a rule compares two fields of the record, which its parser refuses');
  if (recordLeft) return fieldMeets(refOf(recordLeft.path), op, operandValue(right, values));
  if (!recordRight) return comparisonHolds(op, operandValue(left, values), operandValue(right, values));
  const value = operandValue(left, values);
  return op === 'in'
    ? arrayHas(refOf(recordRight.path), value)
    : fieldMeets(refOf(recordRight.path), SWAPPED[op], value);
}

/** Whether the record's `field` meets `op` with `value` (for `in`: is one of its items). */
function fieldMeets(field: FieldRef, op: Comparison, value: unknown): Residue {
  if (op === 'in') {
    if (!Array.isArray(value)) return false;
    const items = [...new Set(value.filter(isScalar))].filter((item) => fits(field, item, 'eq') === undefined);
    const chunks: Condition[] = [];
    for (let at = 0; at < items.length; at += MAX_IN_VALUES) {
      chunks.push({ field, op: 'in', value: items.slice(at, at + MAX_IN_VALUES) });
    }
    return chunks.length <= 1 ? (chunks[0] ?? false) : { or: chunks };
  }
  const wanted = value ?? null;
  if (!isScalar(wanted) || (wanted === null && op !== '==' && op !== '!=')) return op === '!=';
  const filterOp = OPERATOR_OF[op];
  const decided = fits(field, wanted, filterOp);
  if (decided !== undefined) return op === '!=' ? !decided : decided;
  return condition(field, filterOp, wanted);
}

/** Whether the array the record's `field` holds has an item equal to `value`. */
function arrayHas(field: FieldRef, value: unknown): Residue {
  const wanted = value ?? null;
  if (typeof field === 'string' || !isScalar(wanted) || fits(field, wanted, 'eq') !== undefined) return false;
  // `contains` also finds text in a string: every string is >= '', and none is an array.
  return { and: [{ field, op: 'contains', value: wanted }, { not: { field, op: 'gte', value: '' } }] };
}

/**
 * Undefined when `value` can meet the field's values; else what `field == value` (or the
 * ordered `op`) is for every record: false, as the typed comparison says, for a value of
 * another type than a system field's, or text no record can hold.
 */
function fits(field: FieldRef, value: JsonScalar, op: Condition['op']): false | undefined {
  const ordered = op !== 'eq' && op !== 'ne';
  if (field === 'id') {
    if (typeof value !== 'number') return false;
    return ordered || (Number.isSafeInteger(value) && value > 0) ? undefined : false;
  }
  if (typeof field === 'string' && typeof value !== 'string') return false;
  // U+0000 ordered is compared below; a lone surrogate as the stores' UTF-8 holds it.
  if (typeof value === 'string' && !ordered && textFault(value) !== undefined) return false;
  return undefined;
}

/**
 * The condition a store can bind that selects what `field op value` does: an id's bound
 * held to the integers ids are (bigint takes no fraction), and text to compare with in
 * order made well-formed as UTF-8 makes it (as the comparison in JavaScript does) and cut
 * before a U+0000, which neither store can bind and no record holds: below "a\0b" is at
 * most "a", above it is above "a". (Equality with such text was decided by {@link fits}.)
 */
function condition(field: FieldRef, op: FilterOp, value: JsonScalar): Condition {
  if (op === 'eq' || op === 'ne') return { field, op, value };
  if (field === 'id' && typeof value === 'number') return { field, op, value: idBound(op, value) };
  if (typeof value !== 'string' || textFault(value) === undefined) return { field, op, value };
  const text = value.replace(/\p{Surrogate}/gu, '\uFFFD');
  const nul = text.indexOf('\0');
  if (nul < 0) return { field, op, value: text };
  return { field, op: op === 'lt' ? 'lte' : op === 'gte' ? 'gt' : op, value: text.slice(0, nul) };
}

function refOf(path: readonly string[]): FieldRef {
  const [head] = path as [string];
  const system = path.length === 1 && isSystemField(head);
  return system ? (head as FieldRef) : { path };
}

function isCondition(filter: RuleFilter): filter is Condition {
  return 'field' in filter;
}
