/**
 * Access control: API keys with a scope, sent as `Authorization: Bearer <key>`.
 *
 * A request is authorized by its effective method, after the method override has rewritten
 * it: GET, HEAD and OPTIONS need a `read` key, every other method a `write` key, so a
 * DELETE tunnelled through POST or GET needs `write` exactly like a real one. With no keys
 * configured nothing is checked (the local quick start; protected mode keeps that on
 * loopback addresses, see ../protected-mode.ts).
 *
 * Written by hand: @fastify/bearer-auth checks one token list with no scopes, and its hook
 * would run before the rate limiter; here a request is identified first (so that the rate
 * limit can count per key, also for unknown keys), limited, and only then authorized.
 * Keys are kept as SHA-256 hashes only (src/config/api-keys.ts reads them) and compared
 * with `timingSafeEqual`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
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
}

/** The methods a `read` key may use; every other method needs a `write` key. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
const REALM = 'Bearer realm="restock"';

const identityKey = Symbol('restock.identity');

interface IdentifiedRequest extends FastifyRequest {
  [identityKey]: Identity;
}

/**
 * Identifies every request in onRequest (before the rate limiter, which counts per key, so
 * it depends on this plugin) and authorizes it in preParsing, once every onRequest hook has
 * run and before the body is read: after a bad override is refused and a preflight
 * answered, which is why it depends on those plugins. A route says `config: { public: true
 * }` to let anyone in, or `{ keyed: true }` to need a key even with PUBLIC_READS.
 */
export const accessControl = fp<AccessOptions>(
  async (app, options) => {
    if (options.keys.length === 0) return;
    app.decorateRequest(identityKey, 'none');
    app.addHook('onRequest', async (request) => {
      const token = request.routeOptions.config.tokenInQuery ? queryToken(request) : undefined;
      const header = request.headers.authorization ?? (token === undefined ? undefined : `Bearer ${token}`);
      (request as IdentifiedRequest)[identityKey] = identify(header, options.keys);
    });
    app.addHook('preParsing', async (request, _reply, payload) => {
      const policy = request.routeOptions.config;
      if (!policy.public && !isPreflight(request)) authorize(request, options.publicReads && !policy.keyed);
      return payload;
    });
  },
  {
    name: 'restock-access-control',
    fastify: '5.x',
    dependencies: ['restock-problems', 'restock-method-override', 'restock-cors'],
  },
);

/** The `access_token` of a request's query, where a route takes one. */
function queryToken(request: FastifyRequest): string | undefined {
  const token = (request.query as Record<string, unknown> | undefined)?.access_token;
  return typeof token === 'string' ? token : undefined;
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
