/**
 * Builds the restock application from a configuration, without listening on a port, so
 * that tests and the server start it the same way.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import type { Config } from '../config/index.js';
import { collectionSchemasOf } from '../core/collection-schema.js';
import { RESOURCES } from '../core/resources.js';
import { openStore, storeOptionsOf } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { DEFAULT_ACCESS_OPTIONS, idempotencyScopeOf, registerAccessControl } from './plugins/access-control.js';
import { AccessLog } from './plugins/access-log/index.js';
import { batchedDestination } from './plugins/access-log/log-destination.js';
import { registerPreflightAnswer } from './plugins/cors/preflight.js';
import { registerJsonBodyParser } from './plugins/json-body.js';
import {
  applyMethodOverride,
  OVERRIDE_HEADER_NAMES,
  registerMethodOverrideHooks,
  registerOverrideRefusal,
  wireMethod,
} from './plugins/method-override/override.js';
import { registerMetrics } from './plugins/metrics/index.js';
import {
  DEFAULT_LOAD_SHEDDING,
  PROBE_ROUTES,
  registerLoadShedding,
  registerRateLimit,
  serverLimits,
} from './plugins/rate-limit/index.js';
import { HttpProblem, sendProblem, toProblem } from './problem.js';
import { registerConsole } from './routes/console.js';
import { registerApiDocs, registerOpenApi } from './routes/docs.js';
import { CostlyQueryGate } from './routes/records/costly-queries.js';
import { DEFAULT_IDEMPOTENCY_OPTIONS, registerIdempotencySweep } from './routes/records/idempotency.js';
import { registerResourceRoutes } from './routes/records/resource-routes.js';
import { registerServiceRoutes } from './routes/service.js';

export interface AppOptions {
  config: Config;
  /** A store to use instead of opening `config.databaseUrl`; the caller then closes it. */
  store?: Store;
  /** Where JSON logs go (default stdout); `false` silences them. */
  logStream?: { write(line: string): void } | false;
  /** How often the event loop delay is measured for load shedding (default 1000 ms). */
  eventLoopSampleMs?: number;
  /** Called with every route as it is registered (to list them, as the OpenAPI test does). */
  onRoute?: (route: RouteOptions) => void;
}

/** Builds the app and opens (and migrates) its store. Close the app to close the store. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const collections = RESOURCES.map((r) => r.plural);
  const schemas = collectionSchemasOf(config, collections);
  const store = options.store ?? (await openStore(config.databaseUrl, collections, storeOptionsOf(config, schemas)));
  try {
    return await assemble(options, store, schemas);
  } catch (error) {
    // A plugin that cannot start (Redis unreachable) must not leave the database open.
    if (!options.store) await store.close();
    throw error;
  }
}

/** The app around an open store: its settings, hooks, plugins and routes. */
async function assemble(
  options: AppOptions,
  store: Store,
  schemas: ReturnType<typeof collectionSchemasOf>,
): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger:
      options.logStream === false
        ? false
        : {
            level: config.logLevel,
            serializers: { req: serializeRequest },
            stream: options.logStream ?? batchedDestination(),
          },
    genReqId: requestId,
    logController: new AccessLog(),
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, useDefaults: true } },
    // The override must change the method before the router sees it, and this callback is
    // the one place Fastify offers before routing.
    rewriteUrl(req) {
      applyMethodOverride(req, config.methodOverride);
      return req.url ?? '/';
    },
    frameworkErrors(error, request, reply) {
      // Answered before any hook runs, so without the onSend hook's header below.
      sendProblem(reply.header('x-content-type-options', 'nosniff'), request, toProblem(error, request.id));
    },
    trustProxy: config.trustProxy || false,
    ...serverLimits(config),
  });

  if (!options.store) app.addHook('onClose', () => store.close());
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  // While closing, a keep-alive connection whose request is still in flight would stay
  // open (and keep the process alive) until its idle timeout; answering its last request
  // with `Connection: close` lets it end as soon as the response is out.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Every response, problems and 404s too, says its Content-Type is to be believed (no
  // browser sniffs JSON into HTML); a page (the console, the reference) passes no Referer on.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    reply.header('x-content-type-options', 'nosniff');
    if (String(reply.getHeader('content-type')).startsWith('text/html')) reply.header('referrer-policy', 'no-referrer');
    done(null, payload);
  });

  // Before any plugin adds routes (@fastify/cors adds OPTIONS *): a route keeps the error
  // handler in place when it was added.
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error as Error, request.id);
    if (problem.kind === 'internal-error') request.log.error({ err: error }, 'request failed');
    else if (problem.kind === 'service-unavailable') request.log.warn({ err: error }, 'store unavailable');
    return sendProblem(reply, request, problem);
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  await registerLoadShedding(app, {
    ...DEFAULT_LOAD_SHEDDING,
    maxEventLoopDelayMs: config.maxEventLoopDelay,
    sampleIntervalMs: options.eventLoopSampleMs ?? DEFAULT_LOAD_SHEDDING.sampleIntervalMs,
  });
  registerMethodOverrideHooks(app, config.methodOverride);
  await app.register(cors, corsOptions(config));
  // Identify the caller, count the request against its budget, refuse a bad override, then authorize it.
  registerAccessControl(app, {
    ...DEFAULT_ACCESS_OPTIONS,
    keys: config.apiKeys,
    publicReads: config.publicReads,
  });
  await registerRateLimit(app, {
    max: config.rateLimitMax,
    windowMs: config.rateLimitWindow,
    redisUrl: config.redisUrl,
    exempt: PROBE_ROUTES,
  });
  registerOverrideRefusal(app);
  registerPreflightAnswer(app);
  registerJsonBodyParser(app, config);

  app.setNotFoundHandler((request, reply) => {
    sendProblem(reply, request, new HttpProblem('not-found', `Nothing lives at ${request.url.split('?', 1)[0]}.`));
  });

  // The generator first, so that it sees every route; metrics next, so that they count them all.
  await registerOpenApi(app, RESOURCES, schemas, config);
  registerMetrics(app, store);
  await registerApiDocs(app);
  const consolePage = await registerConsole(app);
  registerServiceRoutes(app, store, RESOURCES, consolePage);
  const idempotency = {
    ...DEFAULT_IDEMPOTENCY_OPTIONS,
    ttlMs: config.idempotencyKeyHours * 3_600_000,
    scopeOf: idempotencyScopeOf,
  };
  registerIdempotencySweep(app, store.idempotency, idempotency);
  const costlyQueries = new CostlyQueryGate({
    total: config.maxCostlyQueries,
    perClient: config.maxCostlyQueriesPerClient,
  });
  for (const resource of RESOURCES) {
    registerResourceRoutes(app, resource, {
      collection: store.collection(resource.plural),
      idempotencyKeys: store.idempotency,
      idempotency,
      costlyQueries,
      maxFieldNameLength: config.maxFieldNameLength,
      maxRecordBytes: config.maxRecordBytes,
      maxPageBytes: config.maxPageBytes,
      schema: schemas.get(resource.plural),
    });
  }
  return app;
}

/** Takes the caller's `X-Request-Id` when it is a sane token, else makes one. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** What the access log records of a request: both the wire and the effective method. */
function serializeRequest(request: { method: string; url: string; raw?: IncomingMessage; ip?: string }) {
  return {
    method: request.method,
    wireMethod: request.raw ? wireMethod(request.raw) : request.method,
    url: request.url,
    remoteAddress: request.ip,
  };
}

/** CORS through @fastify/cors: the origins configured, the override headers allowed. */
function corsOptions(config: Config) {
  const origin = config.corsOrigin === '*' ? '*' : config.corsOrigin.split(',').map((o) => o.trim());
  const base = {
    origin,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'Content-Type',
      'Authorization',
      'If-Match',
      'If-None-Match',
      'Idempotency-Key',
      'Prefer',
      'X-Request-Id',
      ...OVERRIDE_HEADER_NAMES,
    ],
    // One string: the plugin joins a list again on every request.
    exposedHeaders: [
      'ETag',
      'Link',
      'Location',
      'X-Total-Count',
      'X-Request-Id',
      'Retry-After',
      'Allow',
      'WWW-Authenticate',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Idempotent-Replayed',
      'Preference-Applied',
    ].join(', '),
    maxAge: 600,
    strictPreflight: false,
  };
  // Static options, so that the plugin prepares them once rather than per request (a
  // delegator's options are normalized on every call). Preflight headers go on every
  // OPTIONS, which then continues: a real preflight is answered by registerPreflightAnswer,
  // alike on every path, and a plain OPTIONS by its route, with its `Allow`.
  return { ...base, preflight: true, preflightContinue: true };
}
