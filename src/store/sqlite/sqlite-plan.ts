/**
 * Reads SQLite's EXPLAIN QUERY PLAN of a list: one line per step, such as
 * `SEARCH products USING INDEX products_by_price_2097c3 (<expr>=? AND <expr>>?)`. A page
 * reads no row it does not return when its plan is one walk of the table, in the order
 * asked (no temporary B-tree for the ORDER BY), and that walk answers every condition: a
 * SCAN none, a SEARCH those of the index it searches.
 */
import { PRIMARY_KEY, type Serves } from '../sql/engine.js';
import type { Result } from '../sql/program.js';

const WALK = /^(SCAN|SEARCH) \S+(?: USING (?:COVERING )?INDEX (\S+)| USING INTEGER PRIMARY KEY| USING ROWID)?/;

export function sqliteReadsPastPage(plan: Result['rows'], serves: Serves): boolean {
  const [step, ...more] = plan.map((row) => String(row.detail));
  const walk = step === undefined ? null : WALK.exec(step);
  if (!walk || more.length > 0) return true;
  return !serves(walk[1] === 'SCAN' ? null : (walk[2] ?? PRIMARY_KEY));
}
