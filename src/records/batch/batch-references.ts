/**
 * Results by reference: in a batch, the string `"$0.id"` (as a whole value of a body, or as
 * a path's id) stands for field `id` of operation 0's result. Checked before anything runs
 * where it can be (an operation that does not run earlier, a field its record cannot have),
 * and filled in once the operation it names has run. `"$$0.id"` is the text `$0.id` (one `$`
 * less, however many there are).
 *
 * Written by hand: JSON Pointer and JSON Patch have no notion of another request's result.
 * The form follows OData's `$batch`, where `$1` names what an earlier request of the same
 * change set made, kept to one small grammar.
 */
import { escapePointer } from '../../core/json-pointer.js';
import type { StoredRecord } from '../../store/store.js';
import { Refusal } from '../refusal.js';
import { renderRecord } from '../render.js';

/** A reference: operation `index`'s result, and the field of it (a dotted path). */
export interface ResultReference {
  readonly index: number;
  readonly field: readonly string[];
  /** As written, for messages. */
  readonly text: string;
}

const REFERENCE = /^\$(0|[1-9][0-9]{0,5})\.([A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*)$/;
const ESCAPED = /^\$\$+(0|[1-9][0-9]{0,5})\./;

/** The reference `value` is, if it is one. */
export function referenceIn(value: unknown): ResultReference | undefined {
  if (typeof value !== 'string') return undefined;
  const match = REFERENCE.exec(value);
  if (!match) return undefined;
  return { index: Number(match[1]), field: (match[2] as string).split('.'), text: value };
}

/** Every reference in `value` (a body), with the JSON Pointer of where it stands. */
export function referencesIn(value: unknown, at = ''): { reference: ResultReference; pointer: string }[] {
  const reference = referenceIn(value);
  if (reference) return [{ reference, pointer: at }];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => referencesIn(inner, `${at}/${escapePointer(key)}`));
}

const MENTION = /^\$+(0|[1-9][0-9]{0,5})\./;

/** Whether `value` holds a reference or an escaped one at any depth: whether {@link filledIn} would change it. */
export function mentionsResults(value: unknown): boolean {
  if (typeof value === 'string') return MENTION.test(value);
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(mentionsResults);
}

/** `value` with each reference replaced by what `resolve` gives, and each escaped `$$` unescaped. */
export function filledIn(
  value: unknown,
  resolve: (reference: ResultReference, pointer: string) => unknown,
  at = '',
): unknown {
  const reference = referenceIn(value);
  if (reference) return resolve(reference, at);
  if (typeof value === 'string') return ESCAPED.test(value) ? value.slice(1) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item, i) => filledIn(item, resolve, `${at}/${i}`));
  const filled: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    // defineProperty: a field named __proto__ stays a field.
    Object.defineProperty(filled, key, {
      value: filledIn(inner, resolve, `${at}/${escapePointer(key)}`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return filled;
}

/** The value at `reference.field` of a record as clients see it (parsed); undefined where it has none. */
export function valueAt(record: unknown, reference: ResultReference): unknown {
  let value = record;
  for (const segment of reference.field) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/**
 * Each result as clients see it, parsed once however many references name it: a batch of
 * many references to one large record must not parse it again for each.
 */
export function parsedResults(): (record: StoredRecord) => unknown {
  const parsed = new WeakMap<StoredRecord, unknown>();
  return (record) => {
    if (!parsed.has(record)) parsed.set(record, JSON.parse(renderRecord(record)));
    return parsed.get(record);
  };
}

/** The refusal of a reference that cannot be filled in, pointed at where it stands. */
export function badReference(reference: ResultReference, pointer: string, why: string): Refusal {
  return new Refusal('invalid-batch', `The reference "${reference.text}" ${why}; nothing ran.`, {
    errors: [{ pointer, message: why }],
  });
}
