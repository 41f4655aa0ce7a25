/**
 * record_refs follows the declared references, as indexes follow the declared fields: on
 * start, a reference declared since the last start is filled in from the records already
 * there, and one no longer declared is forgotten. Runs inside the table sync's transaction,
 * under the migration lock, so instances starting together fill each reference once.
 */
import type { Reference } from '../../core/collection.js';
import type { SqlDialect } from './dialect.js';
import { type Program, statement } from './program.js';
import { link } from './reference-sql.js';

/** Records read per round while filling in a reference. */
const RECORDS_PER_ROUND = 1000;

export function* syncReferences(dialect: SqlDialect, references: readonly Reference[]): Program<void> {
  const p = dialect.placeholder;
  const declared = (yield { text: 'SELECT owner, field, target FROM declared_refs', values: [] }).rows.map((row) => ({
    owner: String(row.owner),
    field: String(row.field),
    target: String(row.target),
  }));
  const key = (owner: string, field: string, target: string) => `${owner}\n${field}\n${target}`;
  const wanted = new Set(references.map((r) => key(r.collection.plural, r.name, r.target.plural)));
  for (const stale of declared.filter((d) => !wanted.has(key(d.owner, d.field, d.target)))) {
    yield {
      text: `DELETE FROM record_refs WHERE owner = ${p(1)} AND field = ${p(2)}`,
      values: [stale.owner, stale.field],
    };
    yield {
      text: `DELETE FROM declared_refs WHERE owner = ${p(1)} AND field = ${p(2)}`,
      values: [stale.owner, stale.field],
    };
  }
  const kept = new Set(declared.map((d) => key(d.owner, d.field, d.target)));
  for (const reference of references) {
    if (kept.has(key(reference.collection.plural, reference.name, reference.target.plural))) continue;
    yield* fill(dialect, reference);
    yield {
      text: `INSERT INTO declared_refs (owner, field, target) VALUES (${p(1)}, ${p(2)}, ${p(3)})`,
      values: [reference.collection.plural, reference.name, reference.target.plural],
    };
  }
}

/** Writes the rows of `reference` for every record of its collection. */
function* fill(dialect: SqlDialect, reference: Reference): Program<void> {
  const page = statement<'after' | 'limit'>(
    dialect.placeholder,
    (p) =>
      `SELECT id, ${dialect.dataText} AS data FROM "${reference.collection.plural}" WHERE id > ${p('after')} ` +
      `ORDER BY id LIMIT ${p('limit')}`,
  );
  let after = 0;
  for (;;) {
    const { rows } = yield page({ after, limit: RECORDS_PER_ROUND });
    if (rows.length === 0) return;
    const records = rows.map((row) => ({ id: Number(row.id), fields: JSON.parse(String(row.data)) as unknown }));
    yield* link(dialect, reference.collection.plural, [reference], records);
    after = records.at(-1)?.id ?? after;
  }
}
