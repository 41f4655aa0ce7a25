/**
 * What deleting a referenced record does to the records that refer to it, inside the
 * delete's transaction: a restricting reference refuses it, cascading ones delete their
 * records in turn, set-null ones write null in place of the id.
 *
 * The work is a few statements whatever the depth: one recursive statement finds every
 * record the cascade reaches (stopping past the budget), one per collection reads who
 * refers to them, and one per collection deletes them. A delete refused is refused before
 * anything is changed, at the cost of those reads. (Going level by level cost a few
 * statements per level: a chain of a thousand records held SQLite's only writer for 150 ms.)
 */
import type { Catalog } from '../../core/catalog.js';
import type { Reference } from '../../core/collection.js';
import { withNulled } from '../../core/references.js';
import { ReferencedRecordError, type Referrer, type StoredRecord } from '../store.js';
import type { SqlDialect } from './dialect.js';
import { type Program, statement } from './program.js';

/** The most records one delete may change through references (cascades and set-nulls together). */
export const MAX_REFERRERS_CHANGED = 1000;

/**
 * Releases the records that refer to the record `id` of `table` (deleted already, in this
 * transaction). A restricting reference throws {@link ReferencedRecordError}, as does a
 * delete that would change more than `budget.left` records: the transaction then undoes it.
 */
export function* releaseReferrers(
  dialect: SqlDialect,
  catalog: Catalog,
  table: string,
  id: number,
  budget: { left: number },
): Program<void> {
  const doomed = yield* reach(dialect, catalog, table, id, budget.left);
  const found: FoundReferrer[] = [];
  for (const [target, ids] of doomed) {
    if (catalog.get(target).referrers.length === 0) continue;
    found.push(...(yield* referrersOf(dialect, target, ids, budget.left + 1 - found.length)));
    if (found.length > budget.left) break;
  }
  const referenceOf = (referrer: Referrer) =>
    catalog.get(referrer.collection).references.find((reference) => reference.name === referrer.field);
  const ruleOf = (referrer: Referrer) => referenceOf(referrer)?.onDelete ?? 'restrict';
  const restricting = found.filter((referrer) => ruleOf(referrer) === 'restrict');
  if (restricting.length > 0) throw refusal(restricting, 'restrict');
  if (found.length > budget.left) throw refusal(found, 'too-many');
  budget.left -= found.length;
  for (const [collection, ids] of doomed) {
    const others = collection === table ? ids.filter((other) => other !== id) : ids;
    if (others.length > 0) yield* deleteAll(dialect, collection, others);
  }
  const taken = new Set([...doomed].flatMap(([collection, ids]) => ids.map((other) => `${collection}/${other}`)));
  for (const referrer of found) {
    if (ruleOf(referrer) !== 'set-null' || taken.has(`${referrer.collection}/${referrer.id}`)) continue;
    yield* setNull(dialect, referenceOf(referrer) as Reference, referrer.id, referrer.target);
  }
}

/**
 * The records the delete takes, by collection: the record itself and, where references
 * cascade, every record they reach, found by one recursive statement that stops past the
 * budget. Past it, the delete is refused before anything is read one record at a time.
 */
function* reach(
  dialect: SqlDialect,
  catalog: Catalog,
  table: string,
  id: number,
  budget: number,
): Program<Map<string, number[]>> {
  const doomed = new Map<string, number[]>([[table, [id]]]);
  const cascading = ruleSql(catalog, 'cascade');
  if (cascading === undefined) return doomed;
  const p = dialect.placeholder;
  const { rows } = yield {
    text:
      'WITH RECURSIVE doomed(collection, id) AS (' +
      `SELECT CAST(${p(1)} AS TEXT), CAST(${p(2)} AS BIGINT) UNION ` +
      `SELECT r.owner, r.owner_id FROM doomed d ${dialect.lookupJoin('record_refs', 'r', `r.target = d.collection AND r.target_id = d.id AND ${cascading}`)}) ` +
      `SELECT collection, id FROM doomed LIMIT ${p(3)}`,
    values: [table, id, budget + 2],
  };
  // The record itself is one of them.
  if (rows.length - 1 > budget) throw refusal(yield* referrersOf(dialect, table, [id], 10), 'too-many');
  for (const row of rows) {
    const collection = String(row.collection);
    const ids = doomed.get(collection) ?? [];
    if (collection !== table || Number(row.id) !== id) ids.push(Number(row.id));
    doomed.set(collection, ids);
  }
  return doomed;
}

/**
 * Whether a record_refs row `r` is of a reference with `rule`, as SQL; undefined when none
 * is. An expression of owner and field (collection names hold no `/`), not a comparison of
 * owner: SQLite would otherwise walk the chain through the index by owner, scanning the
 * records found so far at every step, the square of the depth.
 */
function ruleSql(catalog: Catalog, rule: Reference['onDelete']): string | undefined {
  const names = catalog.collections
    .flatMap((collection) => collection.references)
    .filter((reference) => reference.onDelete === rule)
    .map((reference) => `'${`${reference.collection.plural}/${reference.name}`.replaceAll("'", "''")}'`);
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
  const owner = reference.collection.plural;
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
