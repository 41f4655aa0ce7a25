/**
 * How a setting's text becomes its value. Each parser takes the text and the name it came
 * under (`PORT` or `--port`), and throws a ConfigError naming that setting.
 */
import { isIP } from 'node:net';
import { ConfigError } from '../core/config-error.js';
import type { IndexedField } from '../core/indexed-field.js';
import { type OverrideWireMethods, parseOverrideSetting } from './method-override-setting.js';

export type Parser<T> = (raw: string, name: string) => T;

export const integer =
  (min: number, max: number): Parser<number> =>
  (raw, name) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };

/** A number of seconds, fractions allowed (`0.05`), so that tests can make a timer short. */
export const seconds =
  (min: number, max: number): Parser<number> =>
  (raw, name) => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a number of seconds from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };

export const text: Parser<string> = (raw) => raw;

export const yesNo: Parser<boolean> = (raw, name) => {
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
};

export const oneOf =
  <const T extends string>(...allowed: T[]): Parser<T> =>
  (raw, name) => {
    if (!(allowed as string[]).includes(raw)) {
      throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  };

export const redisUrl: Parser<string> = (raw, name) => {
  if (raw !== '' && !/^rediss?:\/\//.test(raw)) throw new ConfigError(`${name} must be a redis:// or rediss:// URL`);
  return raw;
};

export const methodOverride: Parser<OverrideWireMethods> = (raw, name) => {
  const parsed = parseOverrideSetting(raw);
  if (!parsed) throw new ConfigError(`${name} must be get,post, post or off, got "${raw}"`);
  return parsed;
};

/**
 * Reads PUBLIC_URL: '' (none), or an absolute http(s) URL without credentials, query or
 * fragment; its trailing slash is dropped, as the API's paths are appended to it.
 */
export const publicUrl: Parser<string> = (raw, name) => {
  const value = raw.trim();
  if (value === '') return '';
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || /[?#]/.test(value)) {
    throw new ConfigError(
      `${name} must be an http:// or https:// URL without credentials, query or fragment, got "${raw}"`,
    );
  }
  return url.href.replace(/\/+$/, '');
};

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Reads TRUST_PROXY: '' (trust no proxy), or a comma-separated list of addresses, CIDR
 * ranges and the names loopback, linklocal and uniquelocal, as Fastify's trustProxy takes it.
 */
export const trustedProxies: Parser<string> = (raw, name) => {
  for (const item of raw.split(',').map((part) => part.trim())) {
    if (raw.trim() === '' || PROXY_NAMES.has(item)) continue;
    const [address = '', prefix, extra] = item.split('/');
    const family = isIP(address);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new ConfigError(`${name}: "${item}" is not an address, a CIDR range, loopback, linklocal or uniquelocal`);
    }
  }
  return raw.trim();
};

/**
 * Reads `users:email;products:sku,price,dimensions.weight`. Whether each collection exists
 * is checked once they are declared, by the catalog (src/core/catalog.ts).
 */
export const indexes: Parser<readonly IndexedField[]> = (raw, name) => {
  const fields: IndexedField[] = [];
  for (const group of raw.split(';').map((g) => g.trim())) {
    if (group === '') continue;
    const [collection = '', list = ''] = group.split(':', 2).map((part) => part.trim());
    if (!/^[a-z][a-z0-9_]*$/.test(collection)) {
      throw new ConfigError(`${name}: "${group}" does not start with a collection's name and a colon`);
    }
    for (const field of list.split(',').map((f) => f.trim())) {
      const path = field.split('.');
      // Indexed paths are written into SQL literally (to match their index): plain names only.
      if (!path.every((segment) => /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(segment))) {
        throw new ConfigError(`${name}: "${field}" is not a field path of letters, digits and _ (dotted for nested)`);
      }
      fields.push({ collection, path });
    }
  }
  return fields;
};
