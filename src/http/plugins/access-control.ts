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
 * Keys are kept as SHA-256 hashes only (src/config/api-keys.ts reads them) and compared
 * with `timingSafeEqual`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ApiKey, hashKey, KEY_TEXT, type Scope } from '../../config/index.js';
import { HttpProblem } from '../problem.js';
import { isPreflight } from './cors/preflight.js';

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
const REALM = 'Bearer realm="restock"';

const identityKey = Symbol('restock.identity');

interface IdentifiedRequest extends FastifyRequest {
  [identityKey]: Identity;
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
