/**
 * Access control (SPEC §9): API keys with a scope, sent as `Authorization: Bearer <key>`.
 *
 * A request is authorized by its effective method, after the method override has rewritten
 * it: GET, HEAD and OPTIONS need a `read` key, every other method a `write` key, so a
 * DELETE tunnelled through POST or GET needs `write` exactly like a real one. With no keys
 * configured nothing is checked (the local quick start; protected mode keeps that on
 * loopback addresses, see ./protected-mode.ts).
 *
 * Written by hand: @fastify/bearer-auth checks one token list with no scopes, and its hook
 * would run before the rate limiter; here a request is identified first (so that the rate
 * limit can count per key, also for unknown keys), limited, and only then authorized.
 * Keys are kept as SHA-256 hashes only and compared with `timingSafeEqual`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isPreflight } from './preflight.js';
import { HttpProblem } from './problem.js';

export type Scope = 'read' | 'write';

/** A configured key: who holds it, what it may do, and the SHA-256 of its text (never the text). */
export interface ApiKey {
  readonly name: string;
  readonly scope: Scope;
  readonly hash: Buffer;
}

/** What a request's credentials turned out to be. */
type Identity = ApiKey | 'none' | 'invalid';

export interface AccessOptions {
  /** Every key that may call; none: the service is open and nothing is checked. */
  keys: readonly ApiKey[];
  /** Whether requests without a key may read (GET, HEAD, OPTIONS); writes still need a write key. */
  publicReads: boolean;
  /**
   * Routes anyone may call, as registered URL patterns; a pattern ending in `/*` covers
   * every route below it.
   */
  publicRoutes: readonly string[];
  /** Routes that need a key even where `publicReads` lets reads in. */
  keyedRoutes: readonly string[];
}

/**
 * The routes that need no key: the probes (load balancers and orchestrators send none), the
 * index of links and the console's page and files (which then ask for a key), the
 * descriptions of problem types, and the API's description and reference page. None of them
 * shows a record. `/metrics` is not among them: it shows the traffic.
 */
export const PUBLIC_ROUTES: readonly string[] = [
  '/',
  '/healthz',
  '/readyz',
  '/problems/:kind',
  '/openapi.json',
  '/openapi.yaml',
  '/docs',
  '/docs/*',
  '/console/*',
];

/** `/metrics` shows the traffic, by route and status: it needs a key, `PUBLIC_READS` or not. */
export const KEYED_ROUTES: readonly string[] = ['/metrics'];

export const DEFAULT_ACCESS_OPTIONS: AccessOptions = {
  keys: [],
  publicReads: false,
  publicRoutes: PUBLIC_ROUTES,
  keyedRoutes: KEYED_ROUTES,
};

/** The methods a `read` key may use; every other method needs a `write` key. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
const KEY_TEXT = /^[A-Za-z0-9\-._~+/]+=*$/;
const KEY_HASH = /^sha256:([0-9a-f]{64})$/i;
const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Shorter keys are refused: a key must not be guessable within any rate limit. */
const MIN_KEY_LENGTH = 16;
const REALM = 'Bearer realm="restock"';

const identityKey = Symbol('restock.identity');

interface IdentifiedRequest extends FastifyRequest {
  [identityKey]: Identity;
}

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

/**
 * Identifies every request (onRequest: before the rate limiter, which counts per key) and
 * authorizes it once every onRequest hook has run (preParsing: after the rate limiter and
 * before the body is read).
 */
export function registerAccessControl(app: FastifyInstance, options: AccessOptions): void {
  if (options.keys.length === 0) return;
  const isPublic = publicRouteMatcher(options.publicRoutes);
  const keyed = new Set(options.keyedRoutes);
  app.decorateRequest(identityKey, 'none');
  app.addHook('onRequest', async (request) => {
    (request as IdentifiedRequest)[identityKey] = identify(request.headers.authorization, options.keys);
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    const route = request.routeOptions.url;
    if (!isPublic(route) && !isPreflight(request)) authorize(request, options.publicReads && !keyed.has(route ?? ''));
    return payload;
  });
}

/**
 * Whether a route, by its registered URL pattern, is among `publicRoutes` (where a
 * pattern ending in `/*` covers every route below it).
 */
export function publicRouteMatcher(publicRoutes: readonly string[]): (route: string | undefined) => boolean {
  const exact = new Set(publicRoutes.filter((route) => !route.endsWith('/*')));
  const below = publicRoutes.filter((route) => route.endsWith('/*')).map((route) => route.slice(0, -1));
  return (route) => route !== undefined && (exact.has(route) || below.some((prefix) => route.startsWith(prefix)));
}

/** The key a request was made with, once identified; undefined without a valid key. */
export function credentialOf(request: FastifyRequest): ApiKey | undefined {
  const identity = (request as Partial<IdentifiedRequest>)[identityKey];
  return typeof identity === 'object' ? identity : undefined;
}

/** Whose `Idempotency-Key`s these are: keys sent with different API keys never meet. */
export function idempotencyScopeOf(request: FastifyRequest): string {
  const key = credentialOf(request);
  return key ? `key:${key.name}` : 'anonymous';
}

function identify(header: string | undefined, keys: readonly ApiKey[]): Identity {
  if (header === undefined || header === '') return 'none';
  const token = /^Bearer +(\S+) *$/i.exec(header)?.[1];
  if (token === undefined || !KEY_TEXT.test(token)) return 'invalid';
  const hash = hashKey(token);
  let found: ApiKey | undefined;
  // Every key is compared, match or not, so that the time taken says nothing about which matched.
  for (const key of keys) {
    if (timingSafeEqual(hash, key.hash)) found = key;
  }
  return found ?? 'invalid';
}

/** Throws the problem that refuses `request`, unless its key (or, for a read, `publicReads`) lets it in. */
function authorize(request: FastifyRequest, publicReads: boolean): void {
  const needs: Scope = READ_METHODS.has(request.method) ? 'read' : 'write';
  const identity = (request as IdentifiedRequest)[identityKey];
  if (identity === 'none') {
    if (needs === 'read' && publicReads) return;
    throw new HttpProblem('unauthorized', 'This server needs an API key: send "Authorization: Bearer <key>".', {
      headers: { 'www-authenticate': REALM },
    });
  }
  if (identity === 'invalid') {
    throw new HttpProblem(
      'unauthorized',
      'The API key is not one this server knows, or the Authorization header is not "Bearer <key>".',
      { headers: { 'www-authenticate': `${REALM}, error="invalid_token"` } },
    );
  }
  if (needs === 'write' && identity.scope !== 'write') {
    throw new HttpProblem(
      'forbidden',
      `The API key "${identity.name}" may only read; ${request.method} needs a write key.`,
      {
        headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="write"` },
      },
    );
  }
}
