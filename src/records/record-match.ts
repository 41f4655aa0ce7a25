/**
 * Whether a record matches a list's filters, decided in JavaScript by each operator's own
 * test (src/store/filter-operators.ts), the way the SQL core decides it in the database
 * (src/store/sql/list-terms.ts). The change feed filters its events with it, since they never
 * pass through a query.
 */
import { FILTER_OPERATORS } from '../store/filter-operators.js';
import type { Condition, FieldRef, RuleFilter, StoredRecord } from '../store/store.js';

type Fields = Record<string, unknown>;

/** Whether `record` (its fields parsed as `fields`) meets every condition. */
export function matches(record: StoredRecord, fields: Fields, conditions: readonly Condition[]): boolean {
  return conditions.every((condition) => meets(valueAt(record, fields, condition.field), condition));
}

/** Whether `record` meets a record rule's conditions (and, or, not), as the SQL core writes them. */
export function matchesRule(record: StoredRecord, fields: Fields, rule: RuleFilter): boolean {
  if ('and' in rule) return rule.and.every((item) => matchesRule(record, fields, item));
  if ('or' in rule) return rule.or.some((item) => matchesRule(record, fields, item));
  if ('not' in rule) return !matchesRule(record, fields, rule.not);
  return meets(valueAt(record, fields, rule.field), rule);
}

function valueAt(record: StoredRecord, fields: Fields, field: FieldRef): unknown {
  if (typeof field === 'string') return record[field];
  let at: unknown = fields;
  for (const segment of field.path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, segment)) return undefined;
    at = (at as Fields)[segment];
  }
  return at;
}

function meets(value: unknown, { op, value: wanted }: Condition): boolean {
  // The parser gave each operator the value its table entry reads (a list for `in` alone).
  const { holds } = FILTER_OPERATORS[op] as { holds(value: unknown, wanted: Condition['value']): boolean };
  return holds(value, wanted);
}
