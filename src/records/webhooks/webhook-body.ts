/**
 * What a webhook sends for a change, and whether it sends it at all. The body is the
 * Standard Webhooks payload: `{"type","timestamp","data","previous"}`, where `data` is the
 * record as the change feed writes it (./render.ts) and `previous` an update's fields before
 * it; both are stored JSON text, put in as they are, never parsed and written again.
 */

import type { Change } from '../../store/store.js';
import type { WebhookEvent } from '../../store/webhook-model.js';
import { parsedBefore, parsedNow } from '../change-event.js';
import type { ParsedFilter } from '../list-filter.js';
import { renderRecord } from '../render.js';
import { filterHolds, queryFilter, storedValues } from '../rules/filter-holds.js';

export interface WebhookMessage {
  /** `evt_<collection>_<seq>`: the same at every attempt and replay, so receivers drop duplicates by it. */
  readonly messageId: string;
  /** `<collection>.<created|updated|deleted>`. */
  readonly type: string;
  readonly body: string;
}

/**
 * The message for `change` of `collection`, its body at most `maxBytes` (UTF-8) when it can
 * be: over it, `previous` is left out (an update without `previous` was cut so); still over,
 * `data` keeps only the record's id, version and timestamps and the body says
 * `"truncated":true` (the receiver reads the record itself). A body already over `maxBytes`
 * at that is sent as it is: nothing smaller says which record changed.
 */
export function webhookMessage(collection: string, change: Change, maxBytes: number): WebhookMessage {
  const type = `${collection}.${change.kind}`;
  const { record } = change;
  const head = `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(change.loggedAt ?? record.updatedAt)}`;
  const fits = (body: string) => Buffer.byteLength(body, 'utf8') <= maxBytes;
  const data = renderRecord(record);
  let body = `${head},"data":${data}}`;
  if (change.kind === 'updated' && change.previous !== undefined) {
    const whole = `${head},"data":${data},"previous":${change.previous}}`;
    if (fits(whole)) body = whole;
  }
  if (!fits(body)) {
    const stub = `{"id":${record.id},"version":${record.version},"createdAt":${JSON.stringify(record.createdAt)},"updatedAt":${JSON.stringify(record.updatedAt)}}`;
    body = `${head},"data":${stub},"truncated":true}`;
  }
  return { messageId: `evt_${collection}_${change.seq}`, type, body };
}

/**
 * Whether a webhook asking for `events`, with `filter` (parsed from its spec), sends
 * `change`: its kind is one of the events, and the filter holds for the record after the
 * change or, for an update, held before it: the receiver hears of the record leaving, as a
 * feed does. The record's fields are parsed once for every feed and webhook given `change`.
 */
export function webhookMatches(
  change: Change,
  events: readonly WebhookEvent[],
  filter: ParsedFilter | undefined,
): boolean {
  if (!events.includes(change.kind)) return false;
  if (filter === undefined) return true;
  const tree = queryFilter(filter.where, filter.rule);
  if (filterHolds(tree, storedValues(change.record, parsedNow(change)))) return true;
  const { previous } = change;
  if (change.kind !== 'updated' || previous === undefined) return false;
  return filterHolds(tree, storedValues(change.record, parsedBefore(change, previous)));
}
