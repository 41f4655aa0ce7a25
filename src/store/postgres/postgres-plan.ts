/**
 * Reads PostgreSQL's EXPLAIN (FORMAT JSON) of a list, asked with sequential scans, bitmap
 * scans and sorts turned off so that it shows what the indexes can do whatever the table's
 * size. A page reads no row it does not return when every step of its plan is a limit or
 * an index scan that leaves nothing to a filter; a sequential scan, a sort or a filter
 * means rows read and not returned.
 */
import type { Result } from '../sql/program.js';

interface PlanNode {
  'Node Type': string;
  Filter?: string;
  Plans?: PlanNode[];
}

const ORDINARY = new Set(['Limit', 'Index Scan', 'Index Only Scan', 'Subquery Scan', 'Result']);

export function postgresReadsPastPage(plan: Result['rows']): boolean {
  const root = (plan[0]?.['QUERY PLAN'] as { Plan: PlanNode }[] | undefined)?.[0]?.Plan;
  return root === undefined || readsPast(root);
}

function readsPast(node: PlanNode): boolean {
  if (!ORDINARY.has(node['Node Type']) || node.Filter !== undefined) return true;
  return (node.Plans ?? []).some(readsPast);
}

/** The settings a plan is asked under (each `SET LOCAL`, in the question's own transaction). */
export const PLAN_SETTINGS = ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'].map(
  (setting) => `SET LOCAL ${setting} = off`,
);
