/**
 * Access control: API keys with a scope, and accounts' access tokens, both sent as
 * `Authorization: Bearer <key or token>`.
 *
 * A request is authorized by its effective method, after the method override has rewritten
 * it: GET, HEAD and OPTIONS need a `read` key, every other method a `write` key, so a
 * DELETE tunnelled through POST or GET needs `write` exactly like a real one. Where a
 * collection's rules (`x-rules`) cover the operation, a request without a key is let through
 * to the route, which applies the rule; where its rules leave the operation out, only a key
 * may call it. Which of the two an operation is, its route's `rules` policy, is decided in
 * src/records/rules/record-access.ts (`RecordAccess.policy`), as the rule itself is: this
 * plugin only asks, before the body is read, and answers with the credential's problem.
 * With no keys, no accounts and no rules, nothing is checked (the local quick start;
 * protected mode keeps that on loopback addresses, see ../../protected-mode.ts).
 *
 * Written by hand: @fastify/bearer-auth checks one token list with no scopes, and its hook
 * would run before the rate limiter; here a request is identified first (so that the rate
 * limit can count per key, also for unknown keys), limited, and only then authorized.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { READ_METHODS } from '../../../api/methods.js';
import type { ApiKey, Scope } from '../../../config/index.js';
import { HttpProblem } from '../../problem.js';
import type { RoutePolicy } from '../../route-policy.js';
import { isPreflight } from '../cors/preflight.js';
import { type Identity, identify, identityOf, setIdentity, type TokenCheck } from './identity.js';

export {
  accountOf,
  callerName,
  callerOf,
  credentialOf,
  type TokenCheck,
  tokenExpiryOf,
} from './identity.js';

export interface AccessOptions {
  /** Every key that may call; none: the service is open and nothing is checked. */
  keys: readonly ApiKey[];
  /** Whether requests without a key may read (GET, HEAD, OPTIONS); writes still need a write key. */
  publicReads: boolean;
  /** Accounts' access tokens; absent when no collection holds accounts and no provider is trusted. */
  tokens?: TokenCheck;
  /** Accounts' file tokens (`?token=` on a download); absent when no collection holds accounts. */
  fileTokens?: TokenCheck;
  /** Whether any collection declares rules, which are checked even with no keys configured. */
  ruled?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Throws the problem that refuses `request` for `method` on a route of `policy`, as if it
     * had been sent alone: for a batch's operations.
     */
    authorizeAs(request: FastifyRequest, method: string, policy: AuthorizedBy): void;
  }
}

/** What of a route's policy decides who may call it. */
export type AuthorizedBy = Pick<RoutePolicy, 'keyed' | 'writeKey' | 'rules'>;

const REALM = 'Bearer realm="restock"';

/**
 * Identifies every request in onRequest (before the rate limiter, which counts per key, so
 * it depends on this plugin) and authorizes it in preParsing, once every onRequest hook has
 * run and before the body is read: after a bad override is refused and a preflight
 * answered, which is why it depends on those plugins. A route says `config: { public: true
 * }` to let anyone in, `{ keyed: true }` to need a key even with PUBLIC_READS, `{ writeKey:
 * true }` to need a write key for reads too, and
 * `{ rules: 'apply' | 'keys' }` for a collection's operation its rules cover or leave out.
 */
export const accessControl = fp<AccessOptions>(
  async (app, options) => {
    const checked = options.keys.length > 0 || options.tokens !== undefined || options.ruled === true;
    app.decorate('authorizeAs', (request: FastifyRequest, method: string, policy: AuthorizedBy) => {
      if (checked) authorize(request, method, policy, options);
    });
    if (!checked) return;
    app.addHook('onRequest', async (request) => {
      const { tokenInQuery, fileToken } = request.routeOptions.config;
      const { authorization } = request.headers;
      const file = fileToken && authorization === undefined ? queryToken(request, 'token') : undefined;
      if (file !== undefined) {
        setIdentity(request, (await options.fileTokens?.verify(file)) ?? 'invalid');
        return;
      }
      const token = tokenInQuery ? queryToken(request, 'access_token') : undefined;
      const header = authorization ?? (token === undefined ? undefined : `Bearer ${token}`);
      setIdentity(request, await identify(header, options.keys, options.tokens));
    });
    app.addHook('preParsing', async (request, _reply, payload) => {
      const policy = request.routeOptions.config;
      if (policy.public || isPreflight(request)) return payload;
      // A batch's operations are each authorized by its route, as if sent alone.
      if (policy.batch) refuseInvalid(request);
      else authorize(request, request.method, policy, options);
      return payload;
    });
  },
  {
    name: 'restock-access-control',
    fastify: '5.x',
    dependencies: ['restock-problems', 'restock-method-override', 'restock-cors'],
  },
);

/** The token named `name` in a request's query, where a route takes one. */
function queryToken(request: FastifyRequest, name: 'access_token' | 'token'): string | undefined {
  const token = (request.query as Record<string, unknown> | undefined)?.[name];
  return typeof token === 'string' ? token : undefined;
}

/**
 * Throws the problem that refuses `request` for `method` on a route of `policy`, unless its
 * credential, the route's rules or PUBLIC_READS let it in.
 */
function authorize(request: FastifyRequest, method: string, policy: AuthorizedBy, options: AccessOptions): void {
  const needs: Scope = READ_METHODS.has(method) && !policy.writeKey ? 'read' : 'write';
  const identity = refuseInvalid(request);
  if (typeof identity === 'object' && 'scope' in identity) {
    if (needs === 'write' && identity.scope !== 'write') {
      const what = policy.writeKey ? 'this' : method;
      throw new HttpProblem('forbidden', `The API key "${identity.name}" may only read; ${what} needs a write key.`, {
        headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="write"` },
      });
    }
    return;
  }
  if (policy.rules === 'apply') return;
  const open = policy.rules === undefined && options.keys.length === 0;
  if (open || (identity === 'none' && needs === 'read' && options.publicReads && !policy.keyed && !policy.rules)) {
    return;
  }
  if (identity === 'none') {
    throw new HttpProblem('unauthorized', 'This needs an API key: send "Authorization: Bearer <key>".', {
      headers: { 'www-authenticate': REALM },
    });
  }
  throw new HttpProblem('forbidden', 'An account may not do this: it is for API keys only.', {
    headers: { 'www-authenticate': `${REALM}, error="insufficient_scope"` },
  });
}

/** The request's identity, unless its credential is one this server does not know (a 401). */
function refuseInvalid(request: FastifyRequest): Exclude<Identity, 'invalid'> {
  const identity = identityOf(request);
  if (identity !== 'invalid') return identity;
  throw new HttpProblem(
    'unauthorized',
    'The credential is not an API key this server knows nor an access token it accepts (it may have expired), ' +
      'or the Authorization header is not "Bearer <key or token>".',
    { headers: { 'www-authenticate': `${REALM}, error="invalid_token"` } },
  );
}
