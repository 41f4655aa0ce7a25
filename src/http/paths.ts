/**
 * Registers a set of paths with Fastify so that each answers every method: the ones it
 * takes, OPTIONS with `Allow`, HEAD wherever GET works, and 405 with `Allow` for the rest
 * (TRACE and QUERY included).
 */
import type { FastifyInstance, FastifySchema, HTTPMethods, LogLevel, RouteHandlerMethod } from 'fastify';
import { HttpProblem } from './problem.js';
import type { RoutePolicy } from './route-policy.js';

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/**
 * Methods no path takes but Fastify routes: refused with 405 on a known path (as RFC 9110
 * asks of a method the resource does not support) rather than 404 as an unknown route.
 */
const NEVER_TAKEN = ['TRACE', 'QUERY'] as const;
export type Method = Exclude<(typeof ALL_METHODS)[number], 'HEAD' | 'OPTIONS'>;

/** One method of one path: what answers it, and the schemas that validate and document it. */
export interface Operation {
  handler: RouteHandlerMethod;
  /** What Fastify validates (params, query, headers); documented as well. */
  schema?: FastifySchema;
  /**
   * What only the OpenAPI document shows: summaries, bodies and responses. Handlers send
   * pre-rendered JSON and check bodies themselves (400, or 422 against the collection's
   * schema), so Fastify neither validates these nor compiles serializers for them.
   */
  docs?: FastifySchema;
  /** What the guards make of this method alone, beside its path's policy. */
  policy?: RoutePolicy;
}

export interface PathEntry {
  url: string;
  /** An accepted alias of a canonical path: served the same, left out of the docs. */
  alias?: boolean;
  /** The path's log level; `warn` keeps it out of the access log (probes, metrics). */
  logLevel?: LogLevel;
  /** What the guards make of every method of the path, OPTIONS and 405s included (./route-policy.ts). */
  policy?: RoutePolicy;
  /**
   * `false`: its answers go out as they are, never compressed (a file's bytes, whose ranges,
   * length and ETag are of the stored bytes, and which would be held to be compressed).
   */
  compress?: false;
  operations: Partial<Record<Method, Operation>>;
}

export function registerPaths(app: FastifyInstance, entries: readonly PathEntry[]): void {
  const byUrl = new Map<string, PathEntry[]>();
  for (const entry of entries) byUrl.set(entry.url, [...(byUrl.get(entry.url) ?? []), entry]);

  for (const [url, sameUrl] of byUrl) {
    const taken = new Set<string>(['OPTIONS']);
    const policy: RoutePolicy = Object.assign({}, ...sameUrl.map((entry) => entry.policy));
    for (const entry of sameUrl) {
      for (const [method, operation] of Object.entries(entry.operations) as [Method, Operation][]) {
        taken.add(method);
        if (method === 'GET') taken.add('HEAD');
        const { docs } = operation;
        app.route({
          method,
          url,
          handler: operation.handler,
          ...(entry.logLevel ? { logLevel: entry.logLevel } : {}),
          ...(entry.compress === false && { compress: false }),
          schema: { ...operation.schema, hide: entry.alias } as FastifySchema,
          config: {
            ...policy,
            ...operation.policy,
            // @fastify/swagger's per-route hook: the document sees the docs, Fastify does not.
            ...(docs
              ? { swaggerTransform: ({ schema, url: path }) => ({ schema: { ...schema, ...docs }, url: path }) }
              : {}),
          },
        });
      }
    }
    const allow = ALL_METHODS.filter((method) => taken.has(method)).join(', ');
    app.route({
      method: 'OPTIONS',
      url,
      config: policy,
      schema: { hide: true } as FastifySchema,
      handler: (_request, reply) => reply.code(204).header('allow', allow).send(),
    });
    const refused = [...ALL_METHODS.filter((method) => !taken.has(method)), ...NEVER_TAKEN];
    app.route({
      method: refused as HTTPMethods[],
      url,
      config: policy,
      schema: { hide: true } as FastifySchema,
      handler: (request) => {
        throw new HttpProblem(
          'method-not-allowed',
          `${request.method} is not allowed here; this path takes ${allow}.`,
          {
            headers: { allow },
          },
        );
      },
    });
  }
}
