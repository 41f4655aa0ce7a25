/**
 * A change as a feed sends it: the bytes of one server-sent event. Every feed following a
 * collection is handed the same change objects, so each event is encoded once however many
 * feeds send it (and a filtered feed's parse of the record happens once too): a thousand
 * feeds share one buffer, which the sockets write without copying. Feeds that see the
 * collection alike (the same filters, and rules that came to the same condition: every
 * feed of one account, or of every staff member) share a {@link FeedView} key, and whether
 * a change is theirs to see is decided once for all of them.
 */
import type { Change, Condition, RuleFilter, StoredRecord } from '../store/store.js';
import { renderRecord } from './render.js';
import { filterHolds, queryFilter, storedValues } from './rules/filter-holds.js';

const frames = new WeakMap<Change, Buffer>();
const departures = new WeakMap<Change, Buffer>();
const fieldsNow = new WeakMap<Change, Fields>();
const fieldsBefore = new WeakMap<Change, Fields>();

/** Each change's event for each view that was asked, by view key (null: none). */
const decided = new WeakMap<Change, Map<string, Buffer | null>>();

type Fields = Record<string, unknown>;

/** What a feed sees of its collection: the filters and the rule, one tree, and the key of that tree. */
export interface FeedView {
  readonly key: string;
  /** Undefined for a feed that sees every change. */
  readonly filter: RuleFilter | undefined;
}

const EVERYTHING: FeedView = { key: '', filter: undefined };

/** The view of a feed with the filters `where` and a record rule's `rule`, made once as the feed opens. */
export function feedView(where: readonly Condition[], rule?: RuleFilter): FeedView {
  if (where.length === 0 && rule === undefined) return EVERYTHING;
  const filter = queryFilter(where, rule);
  // The tree's own JSON: two feeds with the same key decide every change alike.
  return { key: JSON.stringify(filter), filter };
}

/**
 * The event a feed of `view` sends for `change`: the change itself when its record matches;
 * for an update that took the record out of the filter or the rule, a `deleted` with the
 * reason `left-filter`, carrying the record as the feed last saw it; otherwise none.
 */
export function eventFor(change: Change, view: FeedView = EVERYTHING): Buffer | undefined {
  const { filter } = view;
  if (filter === undefined) return encoded(change);
  let byView = decided.get(change);
  if (byView === undefined) {
    byView = new Map();
    decided.set(change, byView);
  }
  let event = byView.get(view.key);
  if (event === undefined) {
    event = decide(change, filter) ?? null;
    byView.set(view.key, event);
  }
  return event ?? undefined;
}

const encoded = (change: Change) =>
  memo(frames, change, () => encode(change, change.kind, renderRecord(change.record)));

/** {@link eventFor} for a view with a filter, decided by the evaluator the record rules use. */
function decide(change: Change, filter: RuleFilter): Buffer | undefined {
  const fits = (fields: Fields) => filterHolds(filter, storedValues(change.record, fields));
  if (fits(parsedNow(change))) return encoded(change);
  const previous = change.previous;
  if (change.kind !== 'updated' || previous === undefined) return undefined;
  if (!fits(parsedBefore(change, previous))) return undefined;
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
