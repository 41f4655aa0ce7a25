/**
 * A list's `?filter=`: an expression in the record rules' language (src/core/rules/), with
 * comparisons, `&&`, `||`, `!` and parentheses over the record's fields and literals. It is
 * read by the rules' parser, within the rules' bounds, and becomes the store's conditions the
 * way a list rule does (./rules/list-rule.ts): what must all hold joins the shorthand filters
 * (`field[op]=value`), the rest is the query's tree of conditions. So one compiler writes its
 * SQL on both stores, and one evaluator (./rules/filter-holds.ts) decides the same tree in
 * JavaScript for the change feed.
 */
import { MAX_RULE_DEPTH, MAX_RULE_LENGTH, parseFilterExpression } from '../core/rules/rule-syntax.js';
import type { Operand, RuleNode } from '../core/rules/rule-tree.js';
import type { Condition, RuleFilter } from '../store/store.js';
import { fieldRef, type Names } from './query-terms.js';
import { invalidQuery } from './refusal.js';
import { listRuleFilter } from './rules/list-rule.js';

/** The most comparisons one filter may hold: each is a condition every listed record is checked against. */
export const MAX_FILTER_TERMS = 20;
export { MAX_RULE_DEPTH as MAX_FILTER_DEPTH, MAX_RULE_LENGTH as MAX_FILTER_LENGTH };

const PARAMETER = 'filter';

/** No record has id 0: the condition of a filter that holds for none. */
const NONE: Condition = { field: 'id', op: 'eq', value: 0 };

/** A filter's conditions: all of `where`, and `rule` when it is more than a conjunction. */
export interface ParsedFilter {
  readonly where: readonly Condition[];
  readonly rule?: RuleFilter;
}

/** Reads `text`; a mistake is a 400 naming the parameter `filter` and the column. */
export function parseFilter(text: unknown, names: Names): ParsedFilter {
  if (typeof text !== 'string') throw invalidQuery(PARAMETER, 'may be given once');
  const tree = parseFilterExpression(text, (column, message) => {
    throw invalidQuery(PARAMETER, `column ${column}: ${message}`);
  });
  let terms = 0;
  const check = (operand: Operand) => {
    // The same names a shorthand filter may use: a closed schema's fields, no withheld one.
    if (operand.kind === 'field') fieldRef(operand.path.join('.'), PARAMETER, names);
  };
  const walk = (node: RuleNode): void => {
    if (node.kind === 'and' || node.kind === 'or') node.items.forEach(walk);
    else if (node.kind === 'not') walk(node.item);
    else if (node.kind === 'compare') {
      terms += 1;
      check(node.left);
      check(node.right);
    }
  };
  walk(tree);
  if (terms > MAX_FILTER_TERMS) throw invalidQuery(PARAMETER, `holds at most ${MAX_FILTER_TERMS} comparisons`);
  const filter = listRuleFilter(tree, null);
  if (filter === true) return { where: [] };
  if (filter === false) return { where: [NONE] };
  return filter;
}
