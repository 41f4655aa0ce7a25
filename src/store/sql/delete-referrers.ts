/**
 * What deleting a referenced record does to the records that refer to it, inside the
 * delete's transaction: a restricting reference refuses it, cascading ones delete their
 * records in turn, set-null ones write null in place of the id.
 *
 * The work goes level by level, each a few statements over all the records of the level:
 * who refers to the records deleted last, then the cascade's deletes, one statement per
 * collection. A chain of a thousand records is a thousand levels, each as cheap as the
 * first (one recursive call per level cost the square of the depth).
 */
import { type Reference, withNulled } from '../../core/references.js';
import { ReferencedRecordError, type Referrer, type StoredRecord } from '../store.js';
import type { SqlDialect } from './dialect.js';
import { type Program, statement } from './program.js';
import type { ReferenceGraph } from './reference-sql.js';

/** The most records one delete may change through references (cascades and set-nulls together). */
export const MAX_REFERRERS_CHANGED = 1000;

/**
 * Releases the records that refer to the record `id` of `table` (deleted already, in this
 * transaction). A restricting reference throws {@link ReferencedRecordError}, as does a
 * delete that would change more than `budget.left` records: the transaction then undoes it.
 */
export function* releaseReferrers(
  dialect: SqlDialect,
  graph: ReferenceGraph,
  table: string,
  id: number,
  budget: { left: number },
): Program<void> {
  yield* foresee(dialect, graph, table, id, budget);
  let level = new Map<string, number[]>([[table, [id]]]);
  while (level.size > 0) {
    const next = new Map<string, number[]>();
    for (const [target, ids] of level) {
      if (graph.incoming(target).length === 0) continue;
      const found = yield* referrersOf(dialect, target, ids, budget.left + 1);
      const ruleOf = (referrer: Referrer) => graph.find(referrer.collection, referrer.field)?.onDelete ?? 'restrict';
      const restricting = found.filter((referrer) => ruleOf(referrer) === 'restrict');
      if (restricting.length > 0) throw refusal(restricting, 'restrict');
      budget.left -= found.length;
      if (budget.left < 0) throw refusal(found, 'too-many');
      const cascading = new Map<string, Set<number>>();
      for (const referrer of found) {
        if (ruleOf(referrer) !== 'cascade') continue;
        const ids = cascading.get(referrer.collection) ?? new Set<number>();
        cascading.set(referrer.collection, ids.add(referrer.id));
      }
      for (const [collection, owners] of cascading) {
        const deleted = yield* deleteAll(dialect, collection, [...owners]);
        if (deleted.length > 0) next.set(collection, [...(next.get(collection) ?? []), ...deleted]);
      }
      for (const referrer of found) {
        if (ruleOf(referrer) !== 'set-null') continue;
        yield* setNull(
          dialect,
          graph.find(referrer.collection, referrer.field) as Reference,
          referrer.id,
          referrer.target,
        );
      }
    }
    level = next;
  }
}

/**
 * Before any work, where references cascade: the records the cascade would reach, found by
 * one recursive statement that stops past the budget, and any restricting reference to
 * them. A delete refused for either is then refused at the cost of a read, not of a whole
 * cascade done and rolled back, which a client could ask for again and again.
 */
function* foresee(
  dialect: SqlDialect,
  graph: ReferenceGraph,
  table: string,
  id: number,
  budget: { left: number },
): Program<void> {
  const cascading = ruleSql(graph, 'cascade');
  if (cascading === undefined) return;
  const p = dialect.placeholder;
  const reach =
    'WITH RECURSIVE doomed(collection, id) AS (' +
    `SELECT CAST(${p(1)} AS TEXT), CAST(${p(2)} AS BIGINT) UNION ` +
    `SELECT r.owner, r.owner_id FROM record_refs r JOIN doomed d ON r.target = d.collection AND r.target_id = d.id WHERE ${cascading})`;
  const counted = yield {
    text: `${reach} SELECT count(*) AS n FROM (SELECT 1 FROM doomed LIMIT ${p(3)}) reached`,
    values: [table, id, budget.left + 2],
  };
  // The record itself is one of them.
  if (Number(counted.rows[0]?.n) - 1 > budget.left) {
    throw refusal(yield* referrersOf(dialect, table, [id], 10), 'too-many');
  }
  const restricting = ruleSql(graph, 'restrict');
  if (restricting === undefined) return;
  const { rows } = yield {
    text:
      `${reach} SELECT r.owner, r.owner_id, r.field, r.target_id FROM record_refs r ` +
      `JOIN doomed d ON r.target = d.collection AND r.target_id = d.id WHERE ${restricting} ` +
      'ORDER BY r.owner, r.owner_id, r.field LIMIT 10',
    values: [table, id],
  };
  if (rows.length > 0) throw refusal(rows.map(foundReferrer), 'restrict');
}

/**
 * Whether a record_refs row `r` is of a reference with `rule`, as SQL; undefined when none
 * is. An expression of owner and field (collection names hold no `/`), not a comparison of
 * owner: SQLite would otherwise walk the chain through the index by owner, scanning the
 * records found so far at every step, the square of the depth.
 */
function ruleSql(graph: ReferenceGraph, rule: Reference['onDelete']): string | undefined {
  const names = graph.references
    .filter((reference) => reference.onDelete === rule)
    .map((reference) => `'${`${reference.collection}/${reference.name}`.replaceAll("'", "''")}'`);
  return names.length === 0 ? undefined : `(r.owner || '/' || r.field) IN (${names.join(', ')})`;
}

/** The refusal of the delete, naming the first ten of `referrers`. */
function refusal(referrers: readonly FoundReferrer[], reason: 'restrict' | 'too-many'): ReferencedRecordError {
  return new ReferencedRecordError(
    referrers.slice(0, 10).map(({ collection, id, field }) => ({ collection, id, field })),
    reason,
  );
}

interface FoundReferrer extends Referrer {
  /** The id it refers to. */
  target: number;
}

/** The records that refer to any of `ids` of `target`, at most `limit` of them. */
function* referrersOf(
  dialect: SqlDialect,
  target: string,
  ids: readonly number[],
  limit: number,
): Program<FoundReferrer[]> {
  const { rows } = yield statement<'target' | 'ids' | 'limit'>(
    dialect.placeholder,
    (p) =>
      `SELECT owner, owner_id, field, target_id FROM record_refs WHERE target = ${p('target')} AND ` +
      `${dialect.inList('target_id', p('ids'))} ORDER BY owner, owner_id, field LIMIT ${p('limit')}`,
    'record_refs.referrers_of',
  )({ target, ids: dialect.intList(ids), limit });
  return rows.map(foundReferrer);
}

function foundReferrer(row: Record<string, unknown>): FoundReferrer {
  return {
    collection: String(row.owner),
    id: Number(row.owner_id),
    field: String(row.field),
    target: Number(row.target_id),
  };
}

/** Deletes the records `ids` of `collection` that are still there, and forgets their references; returns their ids. */
function* deleteAll(dialect: SqlDialect, collection: string, ids: readonly number[]): Program<number[]> {
  const { rows } = yield statement<'ids'>(
    dialect.placeholder,
    (p) => `DELETE FROM "${collection}" WHERE ${dialect.inList('id', p('ids'))} RETURNING id`,
    `${collection}.cascade`,
  )({ ids: dialect.intList(ids) });
  const gone = rows.map((row) => Number(row.id));
  if (gone.length > 0) {
    yield statement<'owner' | 'ids'>(
      dialect.placeholder,
      (p) => `DELETE FROM record_refs WHERE owner = ${p('owner')} AND ${dialect.inList('owner_id', p('ids'))}`,
      'record_refs.unlink_all',
    )({ owner: collection, ids: dialect.intList(gone) });
  }
  return gone;
}

function* setNull(dialect: SqlDialect, reference: Reference, ownerId: number, id: number): Program<void> {
  const owner = reference.collection;
  const p = dialect.placeholder;
  const current = (yield {
    text: `SELECT ${dialect.dataText} AS data FROM "${owner}" WHERE id = ${p(1)}${dialect.forUpdate}`,
    values: [ownerId],
  }).rows[0] as Pick<StoredRecord, 'data'> | undefined;
  // A cascade of this delete took the record already.
  if (!current) return;
  const fields = withNulled(JSON.parse(current.data) as Record<string, unknown>, reference, id);
  yield statement<'data' | 'now' | 'id'>(
    p,
    (q) =>
      `UPDATE "${owner}" SET data = ${dialect.json(q('data'), false)}, version = version + 1, ` +
      `updated_at = ${dialect.now(q)} WHERE id = ${q('id')}`,
  )({ data: JSON.stringify(fields), now: new Date().toISOString(), id: ownerId });
  yield {
    text: `DELETE FROM record_refs WHERE owner = ${p(1)} AND owner_id = ${p(2)} AND field = ${p(3)} AND target_id = ${p(4)}`,
    values: [owner, ownerId, reference.name, id],
  };
}
