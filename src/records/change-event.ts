/**
 * A change as a feed sends it: the bytes of one server-sent event. Every feed following a
 * collection is handed the same change objects, so each event is encoded once however many
 * feeds send it (and a filtered feed's parse of the record happens once too): a thousand
 * feeds share one buffer, which the sockets write without copying.
 */
import type { Change, Condition, RuleFilter, StoredRecord } from '../store/store.js';
import { renderRecord } from './render.js';
import { filterHolds, queryFilter, storedValues } from './rules/filter-holds.js';

const frames = new WeakMap<Change, Buffer>();
const departures = new WeakMap<Change, Buffer>();
const fieldsNow = new WeakMap<Change, Fields>();
const fieldsBefore = new WeakMap<Change, Fields>();

type Fields = Record<string, unknown>;

/**
 * The event a feed with the filters `where` (and a record rule's `rule`) sends for `change`:
 * the change itself when its record matches; for an update that took the record out of the
 * filter or the rule, a `deleted` with the reason `left-filter`, carrying the record as the
 * feed last saw it; otherwise none.
 */
export function eventFor(change: Change, where: readonly Condition[], rule?: RuleFilter): Buffer | undefined {
  // One tree, decided by the evaluator the record rules use; a feed without filters parses nothing.
  const filter = where.length === 0 && rule === undefined ? undefined : queryFilter(where, rule);
  const fits = (fields: () => Fields) =>
    filter === undefined || filterHolds(filter, storedValues(change.record, fields()));
  if (fits(() => parsedNow(change))) {
    return memo(frames, change, () => encode(change, change.kind, renderRecord(change.record)));
  }
  const previous = change.previous;
  if (change.kind !== 'updated' || previous === undefined) return undefined;
  if (!fits(() => parsedBefore(change, previous))) return undefined;
  // What the feed saw last, never the fields its filter now leaves out.
  return memo(departures, change, () => {
    const seen: StoredRecord = { ...change.record, data: previous };
    return encode(change, 'deleted', `${renderRecord(seen).slice(0, -1)},"reason":"left-filter"}`);
  });
}

/**
 * The record's fields after `change`, parsed once for every feed and webhook handed the
 * same change object.
 */
export function parsedNow(change: Change): Fields {
  return memo(fieldsNow, change, () => JSON.parse(change.record.data) as Fields);
}

/** An update's fields before it (`previous`), parsed once likewise. */
export function parsedBefore(change: Change, previous: string): Fields {
  return memo(fieldsBefore, change, () => JSON.parse(previous) as Fields);
}

function memo<T>(cache: WeakMap<Change, T>, change: Change, make: () => T): T {
  let value = cache.get(change);
  if (value === undefined) {
    value = make();
    cache.set(change, value);
  }
  return value;
}

function encode(change: Change, kind: Change['kind'], data: string): Buffer {
  return Buffer.from(`id: ${change.seq}\nevent: ${kind}\ndata: ${data}\n\n`);
}
