/**
 * The declared webhooks: those a WEBHOOKS file holds, a JSON array of `{name, url,
 * collections, events?, filter?, secret}`, read and checked once at start, before anything
 * listens. A mistake stops the start with one line that names the file and the entry
 * (`webhooks.json[2].url: …`). Each needs a name (the store keeps them by it, so the file
 * may change its url or secret and still mean the same webhook) and a secret: nothing can
 * show a generated one to whoever wrote the file.
 */
import { readFileSync } from 'node:fs';
import type { Catalog } from '../../core/catalog.js';
import { ConfigError } from '../../core/config-error.js';
import { isObject } from '../../core/is-object.js';
import type { NewWebhook } from '../../store/webhook-model.js';
import { checkDefinition } from './webhook-definition.js';

/** The settings the file is read with. */
export interface DeclaredWebhookSettings {
  /** WEBHOOKS: the file's path, or '' for none. */
  readonly webhooks: string;
  readonly webhooksAllowPrivate: boolean;
  readonly webhooksMax: number;
  readonly maxFieldNameLength: number;
}

/** The longest name: it labels the webhook's metrics and log lines. */
export const MAX_WEBHOOK_NAME = 100;

const ENTRY_FIELDS = ['name', 'url', 'collections', 'events', 'filter', 'secret'];

/** The webhooks the WEBHOOKS file declares; none without one. Throws a {@link ConfigError} at the first mistake. */
export function readDeclaredWebhooks(settings: DeclaredWebhookSettings, catalog: Catalog): NewWebhook[] {
  const file = settings.webhooks;
  if (file === '') return [];
  const entries = parsedFile(file);
  if (entries.length > settings.webhooksMax) {
    throw new ConfigError(`${file}: ${entries.length} webhooks, more than WEBHOOKS_MAX (${settings.webhooksMax})`);
  }
  const context = {
    catalog,
    allowPrivate: settings.webhooksAllowPrivate,
    maxFieldNameLength: settings.maxFieldNameLength,
  };
  const names = new Set<string>();
  return entries.map((entry, index) => {
    const at = `${file}[${index}]`;
    if (!isObject(entry)) throw new ConfigError(`${at}: must be an object {name, url, collections, secret, …}`);
    const name = entryName(entry.name, at, names);
    if (entry.secret === undefined) {
      throw new ConfigError(`${at}.secret: is required (a "whsec_…" secret the receiver verifies with)`);
    }
    const { definition, faults } = checkDefinition(entry, context, ENTRY_FIELDS);
    const fault = faults[0];
    if (!definition?.secret) {
      throw new ConfigError(`${at}${pathOf(fault?.pointer ?? '')}: ${fault?.message ?? 'is invalid'}`);
    }
    return { ...definition.spec, secret: definition.secret, declaredAs: name };
  });
}

function parsedFile(file: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`WEBHOOKS: cannot read ${file} (${code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new ConfigError(`${file}: must be a JSON array of webhooks`);
  return value;
}

function entryName(name: unknown, at: string, seen: Set<string>): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_WEBHOOK_NAME) {
    throw new ConfigError(`${at}.name: is required: a text of 1 to ${MAX_WEBHOOK_NAME} characters`);
  }
  if (seen.has(name)) throw new ConfigError(`${at}.name: "${name}" is the name of an earlier webhook too`);
  seen.add(name);
  return name;
}

/** `/collections/0` as `.collections[0]`: how the line names the place in the entry. */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('');
}
