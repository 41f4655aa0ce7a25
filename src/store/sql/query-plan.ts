/**
 * Which list queries are costly, as the database's planner says: a list is costly when its
 * plan reads rows it does not return (a scan, a sort no index gives, a filter left over
 * after an index's range, a search) or skips them (an offset). Such a query runs off the
 * event loop on SQLite (read-pool.ts), and counts against the caps on costly queries a
 * client, and all clients, may have running at once. A page that walks one index in order
 * and stops at its limit is an ordinary read, filtered or not.
 *
 * The planner is asked once per query shape (the statement's text: fields, operators, sort
 * and the kinds of values, never the values themselves), and again after
 * {@link VERDICT_LIFE_MS}, so that an index another instance made or dropped counts soon.
 */
import { FILTER_OPERATORS } from '../filter-operators.js';
import type { Condition, ListQuery } from '../store.js';
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
    const shape = selectPage(engine, isIndexed, table, 'id, data', {
      ...query,
      after: undefined,
      offset: undefined,
      maxBytes: undefined,
    });
    const known = verdicts.get(shape.text);
    if (known && known.until > now()) return known.costly;
    verdicts.delete(shape.text);
    if (verdicts.size >= MAX_SHAPES) verdicts.delete(verdicts.keys().next().value as string);
    const costly = engine.driver
      .plan(shape)
      .then((plan) => engine.adapter.readsPastPage(plan.rows, servesAll(table, query)));
    verdicts.set(shape.text, { costly, until: now() + VERDICT_LIFE_MS });
    // A planner that failed is asked again next time.
    costly.catch(() => verdicts.delete(shape.text));
    return costly;
  };
}

/** Whether walking an index answers every one of the query's conditions, and no search is asked. */
function servesAll(table: string, { where, search }: ListQuery): Serves {
  return (index) => search === undefined && where.every((condition) => serves(table, index, condition));
}

function serves(table: string, index: string | typeof PRIMARY_KEY | null, { field, op }: Condition): boolean {
  if (index === null || !('seeks' in FILTER_OPERATORS[op])) return false;
  if (index === PRIMARY_KEY) return field === 'id';
  return typeof field === 'object' && indexName({ collection: table, path: field.path }) === index;
}
