/**
 * References kept whole, inside each write's own transaction, on every database.
 *
 * `record_refs` holds one row per id a record refers to (which record, through which
 * reference, to which record), kept by every write of a collection that has references.
 * It answers "who refers to this record?" with one index seek, for references inside
 * arrays too, where an index on the field cannot. A write first reads the records it names,
 * holding them (`FOR KEY SHARE` on PostgreSQL; SQLite has one writer), so that a delete
 * running beside it either comes first (and the write finds the record gone) or waits,
 * and then sees the new reference.
 */
import { heldIds, type Reference, withNulled } from '../../core/references.js';
import {
  type FieldError,
  MissingReferenceError,
  ReferencedRecordError,
  type Referrer,
  type StoredRecord,
} from '../store.js';
import type { SqlDialect } from './dialect.js';
import { type Program, type Sql, sql, statement } from './program.js';

/** The most records one delete may change through references (cascades and set-nulls together). */
export const MAX_REFERRERS_CHANGED = 1000;

/** Rows per INSERT into record_refs. */
const LINKS_PER_INSERT = 500;

/** The tables of references, in a database's id type. */
export function* createReferenceTables(idType: string): Program<void> {
  yield sql(`CREATE TABLE record_refs (
    target     TEXT NOT NULL,
    target_id  ${idType} NOT NULL,
    owner      TEXT NOT NULL,
    owner_id   ${idType} NOT NULL,
    field      TEXT NOT NULL,
    PRIMARY KEY (target, target_id, owner, owner_id, field)
  )`);
  yield sql('CREATE INDEX record_refs_by_owner ON record_refs (owner, owner_id)');
  // The references whose rows record_refs holds for every record: one declared later is
  // filled from the records already there, once (reference-sync.ts).
  yield sql(`CREATE TABLE declared_refs (
    owner  TEXT NOT NULL,
    field  TEXT NOT NULL,
    target TEXT NOT NULL,
    PRIMARY KEY (owner, field)
  )`);
}

/** Which references leave each collection and which arrive at it. */
export class ReferenceGraph {
  private readonly from = new Map<string, Reference[]>();
  private readonly to = new Map<string, Reference[]>();

  constructor(readonly references: readonly Reference[]) {
    for (const reference of references) {
      push(this.from, reference.collection, reference);
      push(this.to, reference.target, reference);
    }
  }

  outgoing(collection: string): readonly Reference[] {
    return this.from.get(collection) ?? [];
  }

  incoming(collection: string): readonly Reference[] {
    return this.to.get(collection) ?? [];
  }

  find(collection: string, field: string): Reference | undefined {
    return this.outgoing(collection).find((reference) => reference.name === field);
  }
}

/** A record's fields, parsed, and where its pointers start (`/3` for the fourth of a bulk create). */
export interface Referring {
  readonly fields: unknown;
  readonly at: string;
}

/**
 * Reads and holds every record `records` name through `references`; a name of a record
 * that does not exist throws {@link MissingReferenceError}, with each pointer to it.
 */
export function* holdTargets(
  dialect: SqlDialect,
  references: readonly Reference[],
  records: readonly Referring[],
): Program<void> {
  const wanted = new Map<string, Map<number, string[]>>();
  for (const reference of references) {
    const ids = wanted.get(reference.target) ?? new Map<number, string[]>();
    wanted.set(reference.target, ids);
    for (const record of records) {
      for (const { id, pointer } of heldIds(record.fields, reference)) {
        const pointers = ids.get(id) ?? [];
        pointers.push(`${record.at}${pointer}`);
        ids.set(id, pointers);
      }
    }
  }
  const errors: FieldError[] = [];
  for (const [target, ids] of wanted) {
    const candidates = [...ids.keys()].filter((id) => id > 0);
    const found = new Set<number>();
    for (let at = 0; at < candidates.length; at += LINKS_PER_INSERT) {
      const chunk = candidates.slice(at, at + LINKS_PER_INSERT);
      const held = yield {
        text: `SELECT id FROM "${target}" WHERE ${dialect.inList('id', dialect.placeholder(1))}${dialect.forKeyShare}`,
        values: [dialect.intList(chunk)],
      };
      for (const row of held.rows) found.add(Number(row.id));
    }
    for (const [id, pointers] of ids) {
      if (found.has(id)) continue;
      const message = id > 0 ? `names no record of ${target} (id ${id})` : `must be the id of a record of ${target}`;
      for (const pointer of pointers) errors.push({ pointer, message });
    }
  }
  if (errors.length > 0) throw new MissingReferenceError(errors.sort((a, b) => (a.pointer < b.pointer ? -1 : 1)));
}

/** Writes the rows of record_refs for `records` of `owner` (whose rows must not exist yet). */
export function* link(
  dialect: SqlDialect,
  owner: string,
  references: readonly Reference[],
  records: readonly { id: number; fields: unknown }[],
): Program<void> {
  const rows = new Map<string, unknown[]>();
  for (const record of records) {
    for (const reference of references) {
      for (const { id } of heldIds(record.fields, reference)) {
        if (id > 0)
          rows.set(`${reference.target}\n${id}\n${record.id}\n${reference.name}`, [
            reference.target,
            id,
            owner,
            record.id,
            reference.name,
          ]);
      }
    }
  }
  const all = [...rows.values()];
  for (let at = 0; at < all.length; at += LINKS_PER_INSERT) {
    const chunk = all.slice(at, at + LINKS_PER_INSERT);
    const values: unknown[] = chunk.flat();
    const tuples = chunk.map((_, i) => `(${[1, 2, 3, 4, 5].map((n) => dialect.placeholder(i * 5 + n)).join(', ')})`);
    yield {
      text: `INSERT INTO record_refs (target, target_id, owner, owner_id, field) VALUES ${tuples.join(', ')}`,
      values,
    };
  }
}

/** Forgets the references a record of `owner` holds. */
export function unlink(dialect: SqlDialect, owner: string, id: number): Sql {
  return statement<'owner' | 'id'>(
    dialect.placeholder,
    (p) => `DELETE FROM record_refs WHERE owner = ${p('owner')} AND owner_id = ${p('id')}`,
    'record_refs.unlink',
  )({ owner, id });
}

/** The records that refer to a record, at most `limit` of them. */
function referrersOf(dialect: SqlDialect, target: string, id: number, limit: number): Sql {
  return statement<'target' | 'id' | 'limit'>(
    dialect.placeholder,
    (p) =>
      `SELECT owner, owner_id, field FROM record_refs WHERE target = ${p('target')} AND target_id = ${p('id')} ` +
      `ORDER BY owner, owner_id, field LIMIT ${p('limit')}`,
    'record_refs.referrers',
  )({ target, id, limit });
}

/**
 * What deleting the record `id` of `table` (deleted already, in this transaction) does to
 * the records that refer to it: a restricting reference throws {@link ReferencedRecordError}
 * (the transaction then undoes the delete); cascading ones are deleted in turn, and
 * set-null ones get null in place of the id. `budget` counts the records still allowed to change.
 */
export function* releaseReferrers(
  dialect: SqlDialect,
  graph: ReferenceGraph,
  table: string,
  id: number,
  budget: { left: number },
): Program<void> {
  if (graph.incoming(table).length === 0) return;
  const found = (yield referrersOf(dialect, table, id, MAX_REFERRERS_CHANGED + 1)).rows.map(
    (row): Referrer => ({ collection: String(row.owner), id: Number(row.owner_id), field: String(row.field) }),
  );
  const ruleOf = (referrer: Referrer) => graph.find(referrer.collection, referrer.field)?.onDelete ?? 'restrict';
  const restricting = found.filter((referrer) => ruleOf(referrer) === 'restrict');
  if (restricting.length > 0) throw new ReferencedRecordError(restricting.slice(0, 10), 'restrict');
  budget.left -= found.length;
  if (budget.left < 0) throw new ReferencedRecordError(found.slice(0, 10), 'too-many');
  for (const referrer of found) {
    const reference = graph.find(referrer.collection, referrer.field) as Reference;
    if (reference.onDelete === 'cascade') yield* cascade(dialect, graph, referrer, budget);
    else yield* setNull(dialect, reference, referrer.id, id);
  }
}

function* cascade(
  dialect: SqlDialect,
  graph: ReferenceGraph,
  referrer: Referrer,
  budget: { left: number },
): Program<void> {
  const gone = yield {
    text: `DELETE FROM "${referrer.collection}" WHERE id = ${dialect.placeholder(1)} RETURNING id`,
    values: [referrer.id],
  };
  // Another reference of the same record deleted it already.
  if (gone.rows.length === 0) return;
  yield unlink(dialect, referrer.collection, referrer.id);
  yield* releaseReferrers(dialect, graph, referrer.collection, referrer.id, budget);
}

function* setNull(dialect: SqlDialect, reference: Reference, ownerId: number, id: number): Program<void> {
  const owner = reference.collection;
  const p = dialect.placeholder;
  const current = (yield {
    text: `SELECT ${dialect.dataText} AS data FROM "${owner}" WHERE id = ${p(1)}${dialect.forUpdate}`,
    values: [ownerId],
  }).rows[0] as Pick<StoredRecord, 'data'> | undefined;
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

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
