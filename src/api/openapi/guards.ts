/**
 * The refusals of the guards in front of the routes, documented on each operation, with who
 * may call it (./security.ts): the guards are hooks, not part of any route's docs, so each
 * route's own `config` (the policy the guards read, src/http/route-policy.ts), whether the guards
 * are on, and the collections' rules say which apply.
 */
import type { SwaggerTransform } from '@fastify/swagger';
import type { RouteOptions } from 'fastify';
import type { Catalog } from '../../core/catalog.js';
import { problemKindsIn, problemResponsesOf, type ResponseSchema } from './responses.js';
import { routeAccess } from './security.js';

/** Which guards are on: API keys (401, 403), access tokens (accounts, an outside provider), the request budget (429). */
export interface GuardsOn {
  keys: boolean;
  rateLimit: boolean;
  /** Whether access tokens are verified; without, whether a collection holds accounts. */
  tokens?: boolean;
}

/**
 * Adds to a documented route the problems the guards can answer it with, and its security:
 * 429 when the request budget is on and the route is in it; once anything is checked (keys,
 * tokens or rules), 401 on every route but the public ones (a wrong credential is refused
 * even where reads are public), and 403 where the credential sent may not do it. Where the
 * route's own docs (its `swaggerTransform`, src/http/paths.ts) name a status too, a problem
 * response names the kinds of both. An onRoute hook: it sees each route's policy as declared.
 */
export function documentGuards(route: RouteOptions, guards: GuardsOn, catalog: Catalog): void {
  const transform = route.config?.swaggerTransform;
  if (!transform) return;
  const access = routeAccess(
    route,
    {
      keys: guards.keys,
      tokens: guards.tokens ?? catalog.collections.some((collection) => collection.account),
      ruled: catalog.collections.some((collection) => Object.keys(collection.rules).length > 0),
    },
    catalog,
  );
  const responses = problemResponsesOf([
    ...access.problems,
    ...(guards.rateLimit && route.config?.rateLimit !== false ? (['too-many-requests'] as const) : []),
  ]);
  if (Object.keys(responses).length === 0 && !access.security) return;
  const withGuards: SwaggerTransform = (input) => {
    const documented = transform(input);
    const schema = documented.schema as { response?: Record<string, ResponseSchema>; description?: string };
    const description = [schema.description, access.description].filter(Boolean).join(' ');
    return {
      ...documented,
      schema: {
        ...schema,
        response: joined(responses, schema.response ?? {}),
        ...(access.security && { security: access.security }),
        // Machine-readable for clients such as the console, which then say that signing in shows more.
        ...(access.anonymousGetsNothing && { 'x-anonymous-gets': 'nothing' }),
        ...(description && { description }),
      },
    };
  };
  route.config = { ...route.config, swaggerTransform: withGuards };
}

/** The route's responses with the guards': where both are problems of one status, one response names all their kinds. */
function joined(guards: Record<string, ResponseSchema>, own: Record<string, ResponseSchema>) {
  const responses = { ...guards, ...own };
  for (const [status, guard] of Object.entries(guards)) {
    const mine = own[status];
    const kinds = mine && problemKindsIn(mine.description);
    if (!kinds || kinds.length === 0) continue;
    const both = problemResponsesOf([...problemKindsIn(guard.description), ...kinds])[Number(status)];
    if (both) responses[status] = both;
  }
  return responses;
}
