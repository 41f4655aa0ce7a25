/**
 * The refusals of the guards in front of the routes, documented on each operation: the
 * guards are hooks, not part of any route's docs, so each route's own `config` (the policy
 * the guards read, ../route-policy.ts) and whether the guards are on say which apply.
 */
import type { SwaggerTransform } from '@fastify/swagger';
import type { RouteOptions } from 'fastify';
import { READ_METHODS } from '../plugins/access-control.js';
import { problemResponsesOf } from './responses.js';

/** Which guards are on: API keys (401, 403) and the request budget (429). */
export interface GuardsOn {
  keys: boolean;
  rateLimit: boolean;
}

/**
 * Adds to a documented route the problems the guards can answer it with: 429 when the
 * request budget is on and the route is in it; with API keys, 401 on every route but the
 * public ones (a wrong key is refused even where reads are public), and 403 where a write
 * key is needed. The route's own docs (its `swaggerTransform`, ../paths.ts) win where both
 * name a status. An onRoute hook: it sees each route's policy as the route declares it.
 */
export function documentGuards(route: RouteOptions, guards: GuardsOn): void {
  const transform = route.config?.swaggerTransform;
  if (!transform) return;
  const guarded = guards.keys && !route.config?.public;
  const writes = [route.method].flat().some((method) => !READ_METHODS.has(method));
  const responses = problemResponsesOf([
    ...(guarded ? (['unauthorized'] as const) : []),
    ...(guarded && writes ? (['forbidden'] as const) : []),
    ...(guards.rateLimit && route.config?.rateLimit !== false ? (['too-many-requests'] as const) : []),
  ]);
  if (Object.keys(responses).length === 0) return;
  const withGuards: SwaggerTransform = (input) => {
    const documented = transform(input);
    const schema = documented.schema as { response?: object };
    return { ...documented, schema: { ...schema, response: { ...responses, ...schema.response } } };
  };
  route.config = { ...route.config, swaggerTransform: withGuards };
}
