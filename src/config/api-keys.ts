/**
 * API keys as the settings give them (API_KEYS, API_KEYS_FILE): `name:scope:key` entries,
 * kept as SHA-256 hashes only. src/http/plugins/access-control/ checks requests against them.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../core/config-error.js';

export type Scope = 'read' | 'write';

/** A configured key: who holds it, what it may do, and the SHA-256 of its text (never the text). */
export interface ApiKey {
  readonly name: string;
  readonly scope: Scope;
  readonly hash: Buffer;
}

/** What a key's text may hold: a bearer token's characters (RFC 6750). */
export const KEY_TEXT = /^[A-Za-z0-9\-._~+/]+=*$/;
const KEY_HASH = /^sha256:([0-9a-f]{64})$/i;
const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Shorter keys are refused: a key must not be guessable within any rate limit. */
const MIN_KEY_LENGTH = 16;

/** The SHA-256 of a key's text: the only form in which restock keeps a key. */
export function hashKey(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Reads keys written as `name:scope:key`, separated by commas or line breaks; blank lines
 * and lines starting with `#` are skipped. In place of the key, `sha256:<64 hex digits>`
 * gives its SHA-256, so that a keys file need not hold the keys themselves. Throws an
 * Error whose message names the entry (by position and name) but never shows a key.
 */
export function parseApiKeys(text: string): ApiKey[] {
  const keys: ApiKey[] = [];
  const entries = text
    .split(/[,\r\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && !entry.startsWith('#'));
  for (const [index, entry] of entries.entries()) {
    const [name = '', scope = '', ...rest] = entry.split(':');
    const secret = rest.join(':');
    const where = `entry ${index + 1}${KEY_NAME.test(name) ? ` ("${name}")` : ''}`;
    if (!KEY_NAME.test(name)) {
      throw new Error(`${where}: a key's name must be 1 to 64 letters, digits, "_", "." or "-" (name:scope:key)`);
    }
    if (scope !== 'read' && scope !== 'write') throw new Error(`${where}: the scope must be read or write`);
    const hashed = KEY_HASH.exec(secret);
    if (hashed?.[1]) {
      keys.push({ name, scope, hash: Buffer.from(hashed[1], 'hex') });
      continue;
    }
    if (!KEY_TEXT.test(secret)) {
      throw new Error(`${where}: a key may hold only letters, digits and - . _ ~ + / (then = padding)`);
    }
    if (secret.length < MIN_KEY_LENGTH) {
      throw new Error(`${where}: a key must be at least ${MIN_KEY_LENGTH} characters (try: openssl rand -hex 32)`);
    }
    keys.push({ name, scope, hash: hashKey(secret) });
  }
  const duplicate = duplicateKeys(keys);
  if (duplicate) throw new Error(duplicate);
  return keys;
}

/** Says what is wrong when two keys share a name or a key appears twice; undefined when all is well. */
export function duplicateKeys(keys: readonly ApiKey[]): string | undefined {
  for (const [i, key] of keys.entries()) {
    for (const other of keys.slice(i + 1)) {
      if (other.name === key.name) return `two keys are named "${key.name}"`;
      if (other.hash.equals(key.hash)) return `keys "${key.name}" and "${other.name}" are the same key`;
    }
  }
  return undefined;
}

/** API keys from a setting's text; a mistake names the setting (`name`) but never shows a key. */
export function apiKeysSetting(raw: string, name: string): readonly ApiKey[] {
  try {
    return parseApiKeys(raw);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
}

/** API keys from the file at `path` ('' for none), as the setting `name` gave it. */
export function apiKeysFromFile(path: string, name: string): readonly ApiKey[] {
  if (path === '') return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  return apiKeysSetting(text, `${name} (${path})`);
}
