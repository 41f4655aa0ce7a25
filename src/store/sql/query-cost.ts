/**
 * Which list queries may read far more rows than they return. Such a query runs off the
 * event loop on SQLite (read-pool.ts), and counts against the caps on costly queries a
 * client, and all clients, may have running at once.
 */
import type { ListQuery } from '../store.js';
import type { IsIndexed } from './list-terms.js';

/**
 * Cheap is only walking one index in order, from the start or from a cursor, and stopping
 * at the limit: a page in id order, or in the order of one indexed field. A filter may
 * match few rows or most of them, a search reads every string, an offset reads what it
 * skips, a sort without its index sorts every row: all costly.
 */
export function isCostly(query: ListQuery, isIndexed: IsIndexed): boolean {
  if (query.where.length > 0 || query.search !== undefined || (query.offset ?? 0) > 0) return true;
  if (query.sort.length > 1) return true;
  const field = query.sort[0]?.field;
  return field !== undefined && field !== 'id' && !(typeof field === 'object' && isIndexed(field.path));
}
