/** The API keys the access and limits suites configure, and requests made with them. */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { type Config, parseApiKeys } from '../../src/config/index.js';

export const READ_KEY = 'rk_0123456789abcdefREAD';
export const WRITE_KEY = 'wk_0123456789abcdefWRITE';
/** Well-formed, but no server knows it. */
export const UNKNOWN_KEY = 'uk_0123456789abcdefNONE';
export const API_KEYS = `reader:read:${READ_KEY},writer:write:${WRITE_KEY}`;

export type Credential = 'none' | 'read' | 'write' | 'unknown';
export const CREDENTIALS: readonly Credential[] = ['none', 'read', 'write', 'unknown'];

const KEY_OF: Record<Credential, string | undefined> = {
  none: undefined,
  read: READ_KEY,
  write: WRITE_KEY,
  unknown: UNKNOWN_KEY,
};

/** The Authorization header of a credential (none: no header). */
export function authorization(credential: Credential): Record<string, string> {
  const key = KEY_OF[credential];
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** Settings that configure the test keys (for `useApp` or `defaultConfig`). */
export function withKeys(overrides: Partial<Config> = {}): Partial<Config> {
  return { apiKeys: parseApiKeys(API_KEYS), ...overrides };
}

/** Injects a request with a credential's Authorization header added. */
export function injectAs(app: FastifyInstance, credential: Credential, options: InjectOptions) {
  return app.inject({ ...options, headers: { ...options.headers, ...authorization(credential) } });
}
