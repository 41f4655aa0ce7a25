/**
 * A webhook's definition as a client (a POST or PUT body) or a WEBHOOKS file's entry writes
 * it: `{url, collections, events?, filter?, secret?}`, checked against the catalog before
 * anything is stored. The collections must exist, the events be some of the three, the
 * filter read for every collection it follows (as a list's `?filter=` would, with the names
 * each allows), the url reach an address this server may call, and a given secret be a
 * Standard Webhooks one. Every fault is reported with its place (a JSON Pointer), so that
 * the API can answer them all at once and the file's reader name the entry.
 */
import type { Catalog } from '../../core/catalog.js';
import { isObject } from '../../core/is-object.js';
import type { WebhookEvent, WebhookSpec } from '../../store/webhook-model.js';
import { type FieldError, Refusal } from '../refusal.js';
import { checkWebhookUrl } from './webhook-address.js';
import { webhookFilterOf } from './webhook-filter.js';
import { isWebhookSecret } from './webhook-secret.js';

export const WEBHOOK_EVENTS: readonly WebhookEvent[] = ['created', 'updated', 'deleted'];

/** The longest url taken: longer ones are no endpoint anyone types, and every delivery's log line carries it. */
export const MAX_URL_LENGTH = 2048;

/** What a definition is checked against. */
export interface DefinitionContext {
  readonly catalog: Catalog;
  /** WEBHOOKS_ALLOW_PRIVATE. */
  readonly allowPrivate: boolean;
  /** MAX_FIELD_NAME_LENGTH: what a filter's field names keep to, as in a list's query. */
  readonly maxFieldNameLength: number;
}

/** A definition, checked: its spec, and the secret it gave (none: one is made). */
export interface CheckedDefinition {
  readonly spec: WebhookSpec;
  readonly secret?: string;
}

/** The fields a definition has; a caller names those it also takes (`name`, `paused`). */
const DEFINITION_FIELDS = ['url', 'collections', 'events', 'filter', 'secret'] as const;

/** What checking found: the definition when all is well; else every fault, and apart, why the url was refused. */
export interface DefinitionCheck {
  readonly definition?: CheckedDefinition;
  readonly faults: readonly FieldError[];
  /** The url's refusal (its own problem kind through the API), with its pointer among `faults`. */
  readonly addressRefused?: string;
}

/**
 * Checks `body` against `context`. `fields` are the fields it may have (the rest are faults:
 * a misspelt `event` would otherwise be dropped without a word).
 */
export function checkDefinition(
  body: unknown,
  context: DefinitionContext,
  fields: readonly string[] = DEFINITION_FIELDS,
): DefinitionCheck {
  if (!isObject(body)) return { faults: [{ pointer: '', message: 'must be a JSON object' }] };
  const faults: FieldError[] = [];
  const fault = (field: string, message: string) => faults.push({ pointer: `/${field}`, message });
  for (const name of Object.keys(body)) {
    if (!fields.includes(name)) fault(name, `is not a field of a webhook (they are ${fields.join(', ')})`);
  }
  const url = checkUrl(body.url, fault);
  const addressRefused = url === undefined ? undefined : checkWebhookUrl(url, context.allowPrivate);
  if (addressRefused !== undefined) fault('url', addressRefused);
  const collections = checkCollections(body.collections, context.catalog, fault);
  const events = checkEvents(body.events, fault);
  const filter = checkFilter(body.filter, collections ?? [], context, fault);
  const secret = body.secret;
  if (secret !== undefined && (typeof secret !== 'string' || !isWebhookSecret(secret))) {
    fault('secret', 'must be a Standard Webhooks secret ("whsec_" then base64), or left out for one to be made');
  }
  if (faults.length > 0 || url === undefined || collections === undefined || events === undefined) {
    return { faults, ...(addressRefused !== undefined && { addressRefused }) };
  }
  const spec: WebhookSpec = { url, collections, events, filter: filter ?? null };
  return { definition: { spec, ...(typeof secret === 'string' && { secret }) }, faults };
}

/**
 * The definition in `body`, or the refusal of it: `webhook-address-refused` when the url is
 * its only fault, `invalid-webhook` with every fault otherwise.
 */
export function definitionOrRefusal(
  body: unknown,
  context: DefinitionContext,
  fields?: readonly string[],
): CheckedDefinition {
  const { definition, faults, addressRefused } = checkDefinition(body, context, fields);
  if (definition) return definition;
  if (addressRefused !== undefined && faults.length === 1) {
    throw new Refusal('webhook-address-refused', `The webhook's url is refused: ${addressRefused}.`, {
      errors: [...faults],
    });
  }
  const first = faults[0];
  const where = first?.pointer ? `${first.pointer.slice(1)} ` : '';
  const more = faults.length > 1 ? ` (and ${faults.length - 1} more)` : '';
  throw new Refusal(
    'invalid-webhook',
    `The webhook's ${where}${first?.message ?? 'is invalid'}${more}; nothing was changed.`,
    {
      errors: [...faults],
    },
  );
}

type Fault = (field: string, message: string) => void;

function checkUrl(url: unknown, fault: Fault): string | undefined {
  if (typeof url !== 'string' || url === '') fault('url', 'is required: the http(s) address deliveries are sent to');
  else if (url.length > MAX_URL_LENGTH) fault('url', `must be at most ${MAX_URL_LENGTH} characters`);
  else return url;
  return undefined;
}

function checkCollections(value: unknown, catalog: Catalog, fault: Fault): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    fault('collections', `must be a non-empty array of collections' plurals (${catalog.names.join(', ')})`);
    return undefined;
  }
  const seen = new Set<string>();
  value.forEach((plural, index) => {
    if (typeof plural !== 'string' || !catalog.has(plural)) {
      fault(
        `collections/${index}`,
        `${JSON.stringify(plural)} is no collection (they are ${catalog.names.join(', ')})`,
      );
    } else if (seen.has(plural)) fault(`collections/${index}`, `${plural} is listed twice`);
    seen.add(String(plural));
  });
  return value.every((plural) => typeof plural === 'string' && catalog.has(plural)) ? [...seen] : undefined;
}

function checkEvents(value: unknown, fault: Fault): WebhookEvent[] | undefined {
  if (value === undefined) return [...WEBHOOK_EVENTS];
  const events = new Set<unknown>(Array.isArray(value) ? value : []);
  const known = Array.isArray(value) && value.length > 0 && value.every((event) => WEBHOOK_EVENTS.includes(event));
  if (!known || events.size !== (value as unknown[]).length) {
    fault('events', `must be a non-empty array of distinct events among ${WEBHOOK_EVENTS.join(', ')}`);
    return undefined;
  }
  // In one order whatever the client wrote, so that a definition reads the same every time.
  return WEBHOOK_EVENTS.filter((event) => events.has(event));
}

/** The filter, once it reads for every collection (each refuses the names its records cannot have). */
function checkFilter(
  value: unknown,
  collections: readonly string[],
  context: DefinitionContext,
  fault: Fault,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    fault('filter', 'must be a filter expression (as a list’s ?filter= takes) or null');
    return undefined;
  }
  for (const plural of collections) {
    try {
      webhookFilterOf(context.catalog.get(plural), value, context.maxFieldNameLength);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const message = error.extras.errors?.[0]?.message ?? error.detail;
      fault('filter', collections.length > 1 ? `for ${plural}: ${message}` : message);
      return undefined;
    }
  }
  return value;
}
