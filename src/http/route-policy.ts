/**
 * What a route says of the guards in front of it, in its own `config`, where the guards
 * (src/http/plugins/) and the OpenAPI document read it. A route that says nothing gets
 * every guard: a key where keys are on, the request budget, load shedding.
 *
 * ```ts
 * app.route({ url: '/healthz', config: { public: true, rateLimit: false, shed: false }, … })
 * ```
 */
import type { FastifyContextConfig, FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Anyone may call it, with a key or without (probes, the index, the docs, the console's files). */
    public?: boolean;
    /** It needs a key even where PUBLIC_READS lets reads in without one (it shows more than records). */
    keyed?: boolean;
    /**
     * Only a write key may call it, whatever its method: it shows or changes what reaches
     * outside the service (webhooks, their secrets and deliveries). Where no keys are
     * configured it is as open as every other route.
     */
    writeKey?: boolean;
    /** `false`: served even while the event loop is saturated (the liveness probe). */
    shed?: boolean;
    /**
     * The key may also come as `?access_token=` (a change feed: a browser's EventSource
     * cannot set headers). The access log never writes it.
     */
    tokenInQuery?: boolean;
    /**
     * An account may also come as `?token=`, a file token (a download: a link in an `<img>`
     * or `<a>` cannot set headers). Only a file token is taken there, and nowhere else.
     */
    fileToken?: boolean;
    /**
     * A collection's operation whose rules (`x-rules`) decide for callers without a key
     * (`apply`: the route applies them), or which its rules leave to API keys (`keys`).
     */
    rules?: 'apply' | 'keys';
    /**
     * It carries operations that are each authorized as if sent alone (a batch): the route
     * itself needs no more than a credential this server knows, when one is sent.
     */
    batch?: boolean;
    // `rateLimit: false` (never counted against the request budget): @fastify/rate-limit's types declare it.
  }
}

/** The policy a route may declare. */
export type RoutePolicy = Pick<
  FastifyContextConfig,
  'public' | 'keyed' | 'writeKey' | 'shed' | 'tokenInQuery' | 'fileToken' | 'rules' | 'batch'
> & {
  rateLimit?: false;
};

/**
 * Gives `policy` to every route added in `scope` (and its children): for routes a library
 * adds (@fastify/static's files, @fastify/swagger-ui's page), which take no `config`. Use
 * it in an encapsulated scope only, or every later route of the app would take it too.
 */
export function routesTakePolicy(scope: FastifyInstance, policy: RoutePolicy): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, ...policy };
  });
}
