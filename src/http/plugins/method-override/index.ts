/**
 * Method override: clients that can only send GET or POST name the method they mean in
 * a header, and the request is then handled exactly as if it had arrived with it.
 *
 * Written by hand: the override packages on npm read a `_method` form field or a single
 * header and pass bad values through, while restock takes three header names, with values
 * checked, disagreement refused, and the rewrite done before routing so that routing,
 * body parsing, hooks and logs all see the effective method.
 */
import type { FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { OVERRIDE_HEADER_NAMES } from '../../../api/methods.js';
import type { OverrideWireMethods } from '../../../config/index.js';
import { appendVary } from '../../vary.js';
import { applyMethodOverride, isTunnelled, overrideError, wireMethod } from './override.js';

export { isTunnelled, wireMethod } from './override.js';

/**
 * The construction option that rewrites the method: Fastify's `rewriteUrl` is the one
 * callback that sees the raw request before the router does.
 */
export function methodOverrideOptions(allowed: OverrideWireMethods): Pick<FastifyServerOptions, 'rewriteUrl'> {
  return {
    rewriteUrl(req) {
      applyMethodOverride(req, allowed);
      return req.url ?? '/';
    },
  };
}

export interface MethodOverrideOptions {
  /** The wire methods that may carry an override header (METHOD_OVERRIDE). */
  allowed: OverrideWireMethods;
}

/**
 * Finishes the override once the request is routed, in two hooks. onRequest: tunnelled
 * responses are never cached, and while GET may carry the header every GET response says
 * it varies on it, so no cache serves a tunnelled DELETE from a stored GET. preParsing: a
 * bad override is refused with its 400, after the rate limit has counted it (onRequest)
 * and before a CORS preflight is answered or the caller authorized, so that it is refused
 * alike for every caller; CORS and access control depend on this plugin for that order.
 */
export const methodOverride = fp<MethodOverrideOptions>(
  async (app, { allowed }) => {
    const varyOnGet = allowed.has('GET');
    const vary = OVERRIDE_HEADER_NAMES.join(', ');
    // Callback hooks, not async ones: they run on every request, and a promise per hook
    // per request showed in the profile (bench/README.md).
    app.addHook('onRequest', (request, reply, done) => {
      const wire = wireMethod(request.raw);
      if (varyOnGet && (wire === 'GET' || wire === 'HEAD')) appendVary(reply, vary);
      if (isTunnelled(request.raw)) reply.header('cache-control', 'no-store');
      done();
    });
    app.addHook('preParsing', (request, _reply, payload, done) => {
      const problem = overrideError(request.raw);
      if (problem) done(problem);
      else done(null, payload);
    });
  },
  { name: 'restock-method-override', fastify: '5.x' },
);
