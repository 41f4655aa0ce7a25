/**
 * The tunnelled forms of each collection's operations, in the document: a client that can
 * only send POST (or GET, when METHOD_OVERRIDE allows it) names the method it means in
 * the override header, and the request is then that method's operation. A validating
 * proxy or a generated client only knows what the document lists, so each form the server
 * takes is listed, built from the operations it carries.
 *
 * OpenAPI allows one operation per path and method. So `POST /user/{id}/` is one operation
 * (`tunnelUser`) whatever its header carries, GET, PUT, PATCH or DELETE: its parameters
 * and bodies are theirs, and its answers the union of theirs. Generators make one function
 * of it whose header argument is an enum, rather than several functions they could not tell
 * apart by path and method. Where the wire method already has an operation on the path
 * (`GET /user/{id}/`, which GET may carry PUT, PATCH or DELETE to), that operation is
 * widened the same way, with its header left optional: without it, it is itself.
 *
 * The forms of their own share a tag, after the collections' (the widened operations stay
 * in their collection's): a reader meets each collection's operations once, and the
 * tunnelled forms together, where the reference page folds them (src/http/routes/docs-page.ts).
 */
import type { OverrideWireMethods } from '../../config/index.js';
import type { Collection } from '../../core/collection.js';
import { type Carried, listed, type Method, merged, type Operation } from './merged-operations.js';

export type { Operation } from './merged-operations.js';

import { withArticle } from '../../core/articles.js';
import { overrideReferences, tunnelParameter, tunnelParameterName } from './override-parameters.js';
import { componentNames } from './record-components.js';

/** The tag of every tunnelled form of its own (./index.ts describes it). */
export const OVERRIDE_TAG = 'method override';

const METHODS: readonly Method[] = ['get', 'put', 'post', 'patch', 'delete'];
/** The wire methods that may carry the header, in the order their forms are added. */
const WIRE_METHODS: readonly Method[] = ['post', 'get'];

type PathItem = Partial<Record<Method, Operation>>;
interface Document {
  paths?: Record<string, PathItem>;
  components?: { parameters?: Record<string, unknown> };
}

/** A path whose operations have tunnelled forms, and what a form carrying several of them is called. */
interface TunnelledPath {
  path: string;
  /** The operationId and summary of a form of its own carrying several operations, by their methods. */
  several?: (methods: readonly string[], wire: string) => { operationId: string; summary: string };
}

/** The paths of `collection` whose operations may be tunnelled: its records', and its accounts' where it holds them. */
function tunnelledPaths(collection: Collection): TunnelledPath[] {
  const { plural, singular } = collection;
  const { record } = componentNames(collection);
  const records = (methods: readonly string[], wire: string) => ({
    operationId: `tunnel${record}`,
    summary: `${listed(methods, 'or')} ${withArticle(singular)}, tunnelled through ${wire}`,
  });
  const accounts = (methods: readonly string[], wire: string) => ({
    operationId: `tunnel${record}Auth`,
    summary: `Sign in or sign out (${listed(methods, 'or')}), tunnelled through ${wire}`,
  });
  const paths = [`/${plural}/`, `/${plural}/events/`, `/${singular}/`, `/${singular}/{id}/`];
  // The refresh path has one operation: a form carrying it is named after it.
  const auth = collection.account
    ? [{ path: `/${plural}/auth/`, several: accounts }, { path: `/${plural}/auth/refresh/` }]
    : [];
  return [...paths.map((path) => ({ path, several: records })), ...auth];
}

/** The webhooks' paths (./webhook-operations.ts): the override works there as everywhere. */
const WEBHOOK_PATHS: readonly TunnelledPath[] = [
  '/webhooks/',
  '/webhook/',
  '/webhook/{id}/',
  '/webhook/{id}/secret/',
  '/webhook/{id}/deliveries/',
  '/webhook/{id}/replay/',
].map((path) => ({
  path,
  several: (methods, wire) => ({
    operationId: 'tunnelWebhook',
    summary: `${listed(methods, 'or')} a webhook, tunnelled through ${wire}`,
  }),
}));

/** Adds the tunnelled form of each collection path, and the webhooks', to `document`, for the wire methods `allowed`. */
export function documentTunnels(
  openapi: object,
  collections: readonly Collection[],
  allowed: OverrideWireMethods,
): void {
  const document = openapi as Document;
  document.components = { ...document.components, parameters: { ...document.components?.parameters } };
  const { parameters } = document.components as { parameters: Record<string, unknown> };
  for (const { path, several } of [...collections.flatMap(tunnelledPaths), ...WEBHOOK_PATHS]) {
    const item = document.paths?.[path];
    if (!item) continue;
    // The operations sent directly, before any tunnelled form joins them on the path.
    const direct = METHODS.flatMap((method): Carried[] => (item[method] ? [[method, item[method]]] : []));
    for (const wire of WIRE_METHODS.filter((method) => allowed.has(method.toUpperCase() as 'GET' | 'POST'))) {
      const carried = direct.filter(([method]) => method !== wire);
      if (carried.length === 0) continue;
      const own = direct.find(([method]) => method === wire);
      if (own) {
        item[wire] = widened(own, carried);
      } else {
        const methods = carried.map(([method]) => method.toUpperCase());
        parameters[tunnelParameterName(methods)] ??= tunnelParameter(methods);
        item[wire] = tunnel(wire, carried, several);
      }
    }
  }
}

/** A form of its own: `wire` with the header required, naming one of `carried`. */
function tunnel(wire: Method, carried: readonly Carried[], several: TunnelledPath['several']): Operation {
  const methods = carried.map(([method]) => method.toUpperCase());
  const [[, first]] = carried as [Carried];
  const header = { $ref: `#/components/parameters/${tunnelParameterName(methods)}` };
  const names = carried.map(([, operation]) => operation.operationId).join(', ');
  // One operation carried: named after it (listUsersTunnelled); several: after the path's own (tunnelUser).
  const named = carried.length === 1 ? undefined : several?.(methods, wire.toUpperCase());
  return {
    operationId: named?.operationId ?? `${first.operationId}Tunnelled`,
    summary: named?.summary ?? `${first.summary} (${methods[0]} tunnelled through ${wire.toUpperCase()})`,
    tags: [OVERRIDE_TAG],
    description:
      `For clients that can only send ${wire.toUpperCase()}: the header names the method meant ` +
      `(${listed(methods, 'or')}), and the request is then handled and answered exactly as ${names}. ` +
      'Tunnelled responses are never cached (Cache-Control: no-store).',
    ...merged(carried, [header, ...overrideReferences.slice(1)]),
  };
}

/** The wire method's own operation, which the header may turn into any of `carried`. */
function widened([wire, own]: Carried, carried: readonly Carried[]): Operation {
  const methods = carried.map(([method]) => method.toUpperCase());
  const names = carried.map(([, operation]) => operation.operationId).join(', ');
  const description =
    `With the override header naming ${listed(methods, 'or')}, this request is ${names} instead, ` +
    "with that operation's body and answers (for clients that can only send " +
    `${wire.toUpperCase()}; never cached).`;
  return {
    ...own,
    description: own.description ? `${own.description} ${description}` : description,
    ...merged([[wire, own], ...carried], overrideReferences),
  };
}
