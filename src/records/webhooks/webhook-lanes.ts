/** A webhook's lanes: one per collection it follows, from its stored place, taking the changes its events and filter match. */
import type { Catalog } from '../../core/catalog.js';
import type { Collection } from '../../core/collection.js';
import type { Change } from '../../store/change-log-model.js';
import type { StoredWebhook } from '../../store/webhook-model.js';
import type { RunSettings } from './run-deps.js';
import { webhookMatches } from './webhook-body.js';
import { webhookFilterOf } from './webhook-filter.js';
import { type LaneEvents, WebhookLane } from './webhook-lane.js';

/** Throws the list's refusal when the filter does not read for one of the collections. */
export function lanesOf(
  webhook: StoredWebhook,
  places: ReadonlyMap<string, number>,
  catalog: Pick<Catalog, 'byPlural'>,
  settings: Pick<RunSettings, 'window' | 'maxFieldNameLength'>,
  events: (plural: string) => LaneEvents,
): { collection: Collection; lane: WebhookLane }[] {
  const lanes: { collection: Collection; lane: WebhookLane }[] = [];
  for (const plural of webhook.collections) {
    const collection = catalog.byPlural(plural);
    const start = places.get(plural);
    // A collection no longer declared has no changes to send.
    if (!collection || start === undefined) continue;
    const filter = webhookFilterOf(collection, webhook.filter, settings.maxFieldNameLength);
    const matches = (change: Change) => webhookMatches(change, webhook.events, filter);
    lanes.push({ collection, lane: new WebhookLane(plural, start, settings.window, matches, events(plural)) });
  }
  return lanes;
}
