/**
 * Which list queries are costly, as the database's planner says: a list is costly when its
 * plan reads rows it does not return (a scan, a sort no index gives, a filter left over
 * after an index's range, a search) or skips them (an offset). Such a query runs off the
 * event loop on SQLite (read-pool.ts), and counts against the caps on costly queries a
 * client, and all clients, may have running at once. A page that walks one index in order
 * and stops at its limit is an ordinary read, filtered or not.
 *
 * The planner is asked once per query shape (fields, operators, the kinds of values, the
 * same of a record rule's tree of conditions, sort, and whether a search is long enough for
 * its index; never the values themselves), and again after {@link VERDICT_LIFE_MS}, so
 * that an index another instance made or dropped counts soon. Every other request finds
 * its shape's verdict without writing any SQL.
 */
import { FILTER_OPERATORS } from '../filter-operators.js';
import type { Condition, JsonScalar, ListQuery, RuleFilter } from '../store.js';
import { SEARCH_INDEX_MIN_LENGTH } from './dialect.js';
import { PRIMARY_KEY, type Serves, type SqlEngine } from './engine.js';
import { indexName } from './index-sql.js';
import { selectPage } from './list-sql.js';
import type { IsIndexed } from './list-terms.js';

/** How long a verdict is kept before the planner is asked again. */
export const VERDICT_LIFE_MS = 60_000;

/** Shapes kept per collection: past it, the oldest verdict is forgotten. */
const MAX_SHAPES = 1000;

/** Whether a list query is costly, asked of the planner once per shape. */
export type CostVerdict = (query: ListQuery) => Promise<boolean>;

export function planVerdicts(
  engine: SqlEngine,
  table: string,
  isIndexed: IsIndexed,
  now: () => number = Date.now,
): CostVerdict {
  const verdicts = new Map<string, { costly: Promise<boolean>; until: number }>();
  return async (query) => {
    if ((query.offset ?? 0) > 0) return true;
    const shape = shapeOf(query);
    const known = verdicts.get(shape);
    if (known && known.until > now()) return known.costly;
    verdicts.delete(shape);
    if (verdicts.size >= MAX_SHAPES) verdicts.delete(verdicts.keys().next().value as string);
    const page = selectPage(engine, isIndexed, table, 'id, data', {
      ...query,
      after: undefined,
      offset: undefined,
      maxBytes: undefined,
    });
    const costly = engine.driver
      .plan(page)
      .then((plan) => engine.adapter.readsPastPage(plan.rows, servesAll(table, query)));
    verdicts.set(shape, { costly, until: now() + VERDICT_LIFE_MS });
    // A planner that failed is asked again next time.
    costly.catch(() => verdicts.delete(shape));
    return costly;
  };
}

/** What the SQL of a query's page depends on, besides values: the key of its verdict. */
function shapeOf({ where, rule, sort, search }: ListQuery): string {
  return JSON.stringify([
    where.map(conditionShape),
    rule === undefined ? null : ruleShape(rule),
    sort,
    search === undefined ? null : [...search].length >= SEARCH_INDEX_MIN_LENGTH,
  ]);
}

const kind = (value: JsonScalar) => (value === null ? 'null' : typeof value);

function conditionShape({ field, op, value }: Condition): unknown {
  return [field, op, Array.isArray(value) ? value.map(kind) : kind(value as JsonScalar)];
}

/** A rule's tree with each condition's shape; its depth is the rule's, which its parser bounds. */
function ruleShape(filter: RuleFilter): unknown {
  if ('and' in filter) return { and: filter.and.map(ruleShape) };
  if ('or' in filter) return { or: filter.or.map(ruleShape) };
  if ('not' in filter) return { not: ruleShape(filter.not) };
  return conditionShape(filter);
}

/**
 * Whether walking an index answers every one of the query's conditions, and no search is
 * asked; a rule's tree of conditions is left to a filter, whatever the index.
 */
function servesAll(table: string, { where, rule, search }: ListQuery): Serves {
  return (index) =>
    search === undefined && rule === undefined && where.every((condition) => serves(table, index, condition));
}

function serves(table: string, index: string | typeof PRIMARY_KEY | null, { field, op }: Condition): boolean {
  if (index === null || !('seeks' in FILTER_OPERATORS[op])) return false;
  if (index === PRIMARY_KEY) return field === 'id';
  return typeof field === 'object' && indexName({ collection: table, path: field.path }) === index;
}
