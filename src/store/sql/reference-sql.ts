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
import type { Collection, Reference } from '../../core/collection.js';
import { heldIds } from '../../core/references.js';
import { type FieldError, MissingReferenceError } from '../store.js';
import type { SqlDialect } from './dialect.js';
import { type Program, type Sql, sql, statement } from './program.js';

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
  const wanted = new Map<Collection, Map<number, string[]>>();
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
  for (const [{ plural: target }, ids] of wanted) {
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
          rows.set(`${reference.target.plural}\n${id}\n${record.id}\n${reference.name}`, [
            reference.target.plural,
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
