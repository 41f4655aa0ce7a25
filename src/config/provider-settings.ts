/**
 * AUTH_PROVIDERS: the outside providers accounts sign in with (OpenID Connect), declared in
 * a JSON file, `{ "<plural>": [{ "name", "issuer", "clientId", "clientSecret", "scopes"?,
 * "fields"? }] }`. The file's shape is checked here, at start, each fault in one line; that
 * each plural names a collection of accounts is checked with the catalog
 * (src/records/accounts/providers/). The secret is in a file, not in a variable, as API_KEYS_FILE's are.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../core/config-error.js';
import { isObject } from '../core/is-object.js';
import type { Parser } from './parsers.js';
import type { Setting } from './setting.js';

/** One provider of one account collection. */
export interface ProviderSetting {
  /** Its name in paths (`/<plural>/auth/providers/<name>/`): lower-case letters, digits and `-`. */
  readonly name: string;
  /** Its issuer; its metadata is discovered at `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The scopes asked for; `openid` is always among them. */
  readonly scopes: readonly string[];
  /** Record fields filled from the provider's claims on first sign-in: field name to claim name. */
  readonly fields: Readonly<Record<string, string>>;
}

/** Every account collection's providers, by plural. */
export type ProviderSettings = Readonly<Record<string, readonly ProviderSetting[]>>;

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
const KEYS = new Set(['name', 'issuer', 'clientId', 'clientSecret', 'scopes', 'fields']);

/**
 * Whether `issuer` may be reached over plain HTTP: only on this machine's loopback, for a
 * provider run beside restock in development and in the tests; anywhere else the code and
 * the tokens would cross the network in clear.
 */
export function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
}

/** Reads the providers file at `path` ('' for none), refusing its first fault. */
export const providerSettings: Parser<ProviderSettings> = (path, name) => {
  if (path.trim() === '') return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${name}: ${path} is not JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed)) throw new ConfigError(`${name}: ${path} must hold an object of collections' providers`);
  const settings: Record<string, ProviderSetting[]> = {};
  for (const [plural, list] of Object.entries(parsed)) {
    const fail = (why: string) => new ConfigError(`${name}: ${plural}: ${why}`);
    if (!Array.isArray(list) || list.length === 0) throw fail('must be a non-empty array of providers');
    const seen = new Set<string>();
    settings[plural] = list.map((entry, index) => {
      const provider = providerOf(entry, (why) => fail(`provider ${index}: ${why}`));
      if (seen.has(provider.name)) throw fail(`two providers are named "${provider.name}"`);
      seen.add(provider.name);
      return provider;
    });
  }
  return settings;
};

function providerOf(entry: unknown, fail: (why: string) => ConfigError): ProviderSetting {
  if (!isObject(entry)) throw fail('must be an object');
  const unknown = Object.keys(entry).find((key) => !KEYS.has(key));
  if (unknown !== undefined) throw fail(`unknown key "${unknown}"`);
  const { name, issuer, clientId, clientSecret, scopes = DEFAULT_SCOPES, fields = {} } = entry;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw fail('"name" must be lower-case letters, digits and "-", at most 63');
  }
  // Its path would be the exchange's, /<plural>/auth/providers/exchange/.
  if (name === 'exchange') throw fail('"exchange" is a path of its own, not a provider\'s name');
  if (typeof issuer !== 'string' || !URL.canParse(issuer)) throw fail(`${name}: "issuer" must be a URL`);
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && !isLoopbackHttp(issuer)) {
    throw fail(`${name}: "issuer" must be an https:// URL (http:// only on 127.0.0.1, [::1] or localhost)`);
  }
  if (url.search !== '' || url.hash !== '') throw fail(`${name}: "issuer" takes no query or fragment`);
  for (const [key, value] of [
    ['clientId', clientId],
    ['clientSecret', clientSecret],
  ] as const) {
    if (typeof value !== 'string' || value === '') throw fail(`${name}: "${key}" must be a non-empty string`);
  }
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string' && /^[\x21-\x7e]+$/.test(scope))) {
    throw fail(`${name}: "scopes" must be an array of scope names`);
  }
  if (!isObject(fields) || !Object.values(fields).every((claim) => typeof claim === 'string' && claim !== '')) {
    throw fail(`${name}: "fields" must map record fields to claim names`);
  }
  return Object.freeze({
    name,
    issuer,
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    scopes: Object.freeze([...new Set(['openid', ...scopes])]),
    fields: Object.freeze({ ...(fields as Record<string, string>) }),
  });
}

export const PROVIDER_SETTINGS = {
  authProviders: {
    default: '',
    parse: providerSettings,
    group: 'server',
    help: 'a JSON file of the outside providers (OpenID Connect) each account collection signs in with: issuer, client id and secret, scopes, and which claims fill which fields (see [Sign-in with a provider](api.md#sign-in-with-a-provider))',
  },
} satisfies Record<string, Setting<unknown>>;
