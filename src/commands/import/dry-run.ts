/**
 * `restock import --dry-run`: every line checked as the import would check it, and against
 * the database (ids and unique values already taken, read a few hundred at a time), with
 * nothing written. Each line that would fail is reported, not only the first. References
 * that name no record yet are listed apart: the import keeps them as they are (collections
 * may come in any order), but whoever imports wants to know.
 */
import type { Reference } from '../../core/collection.js';
import { heldIds } from '../../core/references.js';
import type { UniqueField } from '../../core/unique-field.js';
import { type Condition, type JsonScalar, MAX_IN_VALUES, type Records } from '../../store/store.js';
import type { Pending } from './record-line.js';

/** Lines checked against the database at once. */
const ROUND = 500;
/** Problems reported before the rest are only counted. */
const MAX_REPORTED = 100;

export interface LineProblem {
  line: number;
  message: string;
}

/** A reference the collection's records hold, and the collection it names. */
export interface CheckedReference {
  reference: Reference;
  target: Records;
}

export class DryRun {
  readonly problems: LineProblem[] = [];
  /** References to records that do not exist (yet): imported as they are. */
  readonly unresolved: LineProblem[] = [];
  /** Unresolved references found past {@link MAX_REPORTED}, counted only. */
  unreportedUnresolved = 0;
  /** Problems found past {@link MAX_REPORTED}, counted only. */
  unreported = 0;
  checked = 0;
  keepingIds = 0;
  readonly #ids = new Map<number, number>();
  readonly #values = new Map<string, Map<string, number>>();
  #round: Pending[] = [];

  constructor(
    private readonly collection: Records,
    private readonly unique: readonly UniqueField[],
    private readonly references: readonly CheckedReference[] = [],
  ) {}

  report(problem: LineProblem): void {
    if (this.problems.length < MAX_REPORTED) this.problems.push(problem);
    else this.unreported++;
  }

  /** Checks a line that passed the record checks against the file so far, then the database. */
  async add(pending: Pending): Promise<void> {
    this.checked++;
    const id = pending.kept?.id;
    if (id !== undefined) {
      this.keepingIds++;
      const first = this.#ids.get(id);
      if (first !== undefined) this.report({ line: pending.line, message: `id ${id} is also on line ${first}` });
      else this.#ids.set(id, pending.line);
    }
    for (const field of this.unique) {
      const value = valueAt(pending.fields, field);
      if (value === undefined) continue;
      const seen = this.#valuesOf(field);
      const first = seen.get(keyOf(value, field));
      const name = field.path.join('.');
      const shown = JSON.stringify(value);
      if (first !== undefined)
        this.report({ line: pending.line, message: `${name} ${shown} is also on line ${first}` });
      else seen.set(keyOf(value, field), pending.line);
    }
    this.#round.push(pending);
    if (this.#round.length >= ROUND) await this.finish();
  }

  /** Checks the lines not yet checked against the database. */
  async finish(): Promise<void> {
    const round = this.#round;
    this.#round = [];
    const ids = round.flatMap((p) => (p.kept ? [p.kept.id] : []));
    for (const taken of await this.collection.getMany(ids)) {
      const line = round.find((p) => p.kept?.id === taken.id)?.line ?? 0;
      this.report({ line, message: `id ${taken.id} is already taken (use --new-ids to renumber)` });
    }
    for (const field of this.unique) {
      const lines = new Map<string, number>();
      const values: (string | number)[] = [];
      for (const pending of round) {
        const value = valueAt(pending.fields, field);
        if (value === undefined) continue;
        values.push(value);
        lines.set(keyOf(value, field), pending.line);
      }
      for (const record of await this.#existing({ field: { path: field.path }, op: 'in', value: values })) {
        const value = valueAt(JSON.parse(record.data) as Record<string, unknown>, field) as string | number;
        const message = `${field.path.join('.')} ${JSON.stringify(value)} is already taken by record ${record.id}`;
        this.report({ line: lines.get(keyOf(value, field)) ?? 0, message });
      }
    }
    for (const checked of this.references) await this.#resolve(round, checked);
    this.problems.sort((a, b) => a.line - b.line);
    this.unresolved.sort((a, b) => a.line - b.line);
  }

  /** Lists the ids `round` names through `reference` that no record has, in the database or this file. */
  async #resolve(round: readonly Pending[], { reference, target }: CheckedReference): Promise<void> {
    const held = round.flatMap((pending) => heldIds(pending.fields, reference).map((at) => ({ ...at, pending })));
    const ids = [...new Set(held.map((at) => at.id).filter((id) => id > 0))];
    const found = new Set((await target.getMany(ids)).map((r) => r.id));
    const inFile = reference.target === reference.collection ? this.#ids : new Map<number, number>();
    for (const { id, pointer, pending } of held) {
      if (found.has(id) || inFile.has(id)) continue;
      const problem = {
        line: pending.line,
        message: `${pointer} names ${reference.target.plural} ${id}, which does not exist`,
      };
      if (this.unresolved.length < MAX_REPORTED) this.unresolved.push(problem);
      else this.unreportedUnresolved++;
    }
  }

  async #existing(condition: Condition) {
    const values = condition.value as readonly JsonScalar[];
    const found = [];
    for (let start = 0; start < values.length; start += MAX_IN_VALUES) {
      const value = values.slice(start, start + MAX_IN_VALUES);
      found.push(...(await this.collection.list({ where: [{ ...condition, value }], sort: [], limit: value.length })));
    }
    return found;
  }

  #valuesOf(field: UniqueField): Map<string, number> {
    const key = field.path.join('.');
    const values = this.#values.get(key) ?? new Map<string, number>();
    this.#values.set(key, values);
    return values;
  }
}

/** The value of a unique field, when it is one the database compares: a string or a number. */
function valueAt(fields: Record<string, unknown>, field: UniqueField): string | number | undefined {
  let value: unknown = fields;
  for (const segment of field.path) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}

/**
 * How two values of a unique field compare: by type and value, ASCII letters folded where
 * the field ignores case, as the unique index does. (The database check compares exact
 * values, so a stored value that differs only in case is left to the import itself, which
 * then undoes what it wrote.)
 */
function keyOf(value: string | number, field: UniqueField): string {
  if (typeof value === 'number') return `n${value}`;
  return `s${field.ignoreCase ? value.replace(/[A-Z]/g, (c) => c.toLowerCase()) : value}`;
}
