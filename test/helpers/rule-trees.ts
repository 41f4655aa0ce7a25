/**
 * Random rule trees for the property tests that hold the stores' SQL and the evaluator in
 * JavaScript to a rule's meaning (test/list-rules.test.ts, test/list-filter-property.test.ts):
 * the tree's shape, its text, its meaning, and stored records as a rule reads them.
 */
import fc from 'fast-check';
import type { Comparison, Operand, RuleNode, RuleValue } from '../../src/core/rules/rule-tree.js';
import { callerless, comparisonHolds, operandValue, type RuleContext } from '../../src/records/rules/rule-eval.js';
import type { StoredRecord } from '../../src/store/store.js';

export const order = fc.constantFrom<Comparison>('==', '!=', '<', '<=', '>', '>=');

export const compare = (left: Operand, op: Comparison, right: Operand): RuleNode => ({
  kind: 'compare',
  op,
  left,
  right,
});

/** Trees of `comparison`s joined by `&&` and `||` (two or three items) and `!`, small and shrinking. */
export function ruleTrees(comparison: fc.Arbitrary<RuleNode>): fc.Arbitrary<RuleNode> {
  return fc.letrec<{ rule: RuleNode }>((tie) => ({
    rule: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      comparison,
      fc.record({
        kind: fc.constantFrom('and' as const, 'or' as const),
        items: fc.array(tie('rule'), { minLength: 2, maxLength: 3 }),
      }),
      tie('rule').map((item): RuleNode => ({ kind: 'not', item })),
    ),
  })).rule;
}

/** A tree as text: every part in parentheses, so that it reads back as the same tree; `literal` writes a value. */
export function printRule(node: RuleNode, literal: (value: RuleValue) => string = JSON.stringify): string {
  const operand = (o: Operand) =>
    o.kind === 'literal'
      ? literal(o.value)
      : o.kind === 'list'
        ? `[${o.items.map(literal).join(', ')}]`
        : [...(o.scope === 'record' ? [] : [o.scope]), ...o.path].join('.');
  if (node.kind === 'const') return String(node.value);
  if (node.kind === 'compare') return `${operand(node.left)} ${node.op} ${operand(node.right)}`;
  if (node.kind === 'not') return `!(${printRule(node.item, literal)})`;
  return node.items.map((item) => `(${printRule(item, literal)})`).join(node.kind === 'and' ? ' && ' : ' || ');
}

/** A stored record as a rule reads it: its fields and the system fields. */
export const asRule = (record: StoredRecord): Record<string, unknown> & { id: number } => ({
  ...(JSON.parse(record.data) as object),
  id: record.id,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

/** The ids of `records`, in ascending order. */
export const ids = (records: readonly { id: number }[]) => records.map((r) => r.id).sort((x, y) => x - y);

/**
 * What a rule means, read off its tree: each comparison decided for its operands' values.
 * Both SQL and the evaluator (src/records/rules/filter-holds.ts) run the tree compiled into
 * conditions (src/records/rules/list-rule.ts), so the property tests hold both to this,
 * which shares no step of that compilation.
 */
export function ruleMeaning(node: RuleNode, context: RuleContext): boolean {
  switch (node.kind) {
    case 'const':
      return node.value;
    case 'and':
      return node.items.every((item) => ruleMeaning(item, context));
    case 'or':
      return node.items.some((item) => ruleMeaning(item, context));
    case 'not':
      return !ruleMeaning(node.item, context);
    case 'compare':
      if (callerless(node, context)) return false;
      return comparisonHolds(node.op, operandValue(node.left, context), operandValue(node.right, context));
  }
}
