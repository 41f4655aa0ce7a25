/**
 * Builds the restock application from a configuration, without listening on a port, so
 * that tests and the server (src/server.ts) start it the same way. Every concern is a
 * plugin (./plugins/, ./routes/) that names the plugins it needs before it,
 * so that Fastify refuses to start when this list is out of order.
 */
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { appOriginsOf, type Config } from '../config/index.js';
import type { Catalog } from '../core/catalog.js';
import { loadCatalog } from '../core/load-catalog.js';
import { openAccounts, providersByCollection } from '../records/accounts/index.js';
import { ChangeHubs } from '../records/change-hub.js';
import { mailAvailable } from '../records/mail/index.js';
import { readDeclaredWebhooks } from '../records/webhooks/declared-webhooks.js';
import type { FileStorage } from '../store/files/file-storage.js';
import { openFileStorage } from '../store/files/open-file-storage.js';
import { openStore, storeOptionsOf } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { NewWebhook, WebhookTables } from '../store/webhook-model.js';
import { fastifyOptions } from './fastify-options.js';
import { mailDrainOf } from './mail-drain.js';
import type { LogStream } from './plugins/access-log/index.js';
import { fileUpkeep } from './plugins/file-upkeep.js';
import * as plugins from './plugins/index.js';
import { DEFAULT_LOAD_SHEDDING } from './plugins/load-shedding.js';
import { mail } from './plugins/mail/index.js';
import { openApi } from './plugins/openapi/index.js';
import { webhookDelivery } from './plugins/webhooks/index.js';
import { accountRoutes } from './routes/accounts/account-routes.js';
import { providerRoutes } from './routes/accounts/provider-routes.js';
import { verifyRoutes } from './routes/accounts/verify-routes.js';
import { browserConsole } from './routes/console.js';
import { apiDocs } from './routes/docs.js';
import { recordRoutes } from './routes/records/index.js';
import { serviceRoutes } from './routes/service.js';
import { webhookRoutes } from './routes/webhooks/index.js';

export interface AppOptions {
  config: Config;
  /** A store to use instead of opening `config.databaseUrl`; the caller then closes it. */
  store?: Store;
  /** File storage to use instead of the one the settings name (when a collection has file fields); the caller closes it. */
  files?: FileStorage;
  /** Where JSON logs go (default stdout); `false` silences them. */
  logStream?: LogStream;
  /** How often the event loop delay is measured for load shedding (default 1000 ms). */
  eventLoopSampleMs?: number;
  /** Called with every route as it is registered (to list them, as the OpenAPI test does). */
  onRoute?: (route: RouteOptions) => void;
  /** The clock of flows that expire (a provider sign-in's state and code), ms since the epoch; tests move it. */
  now?: () => number;
}

/** Builds the app and opens (and migrates) its store. Close the app to close the store. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const catalog = loadCatalog(config);
  const store = options.store ?? (await openStore(config.databaseUrl, catalog, storeOptionsOf(config)));
  try {
    return await assemble(options, store, catalog);
  } catch (error) {
    // A plugin that cannot start (Redis unreachable) must not leave the database open.
    if (!options.store) await store.close();
    throw error;
  }
}

/** The app around an open store: its plugins, in the order a request meets them. */
async function assemble(options: AppOptions, store: Store, catalog: Catalog): Promise<FastifyInstance> {
  const { config } = options;
  const accounts = await openAccounts(config, catalog, store);
  // Checked before anything listens: AUTH_PROVIDERS naming no account collection fails the start.
  const providers = providersByCollection(config.authProviders, catalog);
  // A WEBHOOKS file with a mistake fails the start, as a bad setting does.
  const declaredWebhooks = readDeclaredWebhooks(config, catalog);
  const app = Fastify(fastifyOptions(config, options.logStream));
  for (const warning of catalog.warnings) app.log.warn(warning);
  // Before any plugin loads: the delivery starts on the file's webhooks as they are now.
  await declareWebhooks(app, store.webhooks, config, declaredWebhooks);
  if (!options.store) app.addHook('onClose', () => store.close());
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  const fileStorage = catalog.collections.some((collection) => collection.files.length > 0)
    ? (options.files ?? (await openFileStorage(config)))
    : undefined;
  if (fileStorage && !options.files) app.addHook('onClose', () => fileStorage.close());
  const files = fileStorage && { storage: fileStorage, maxPixels: config.filesMaxPixels };

  app.register(plugins.connectionLimit, { maxConnections: config.maxConnections });
  app.register(plugins.problems);
  app.register(plugins.responseHeaders);
  app.register(plugins.compression);
  app.register(plugins.lingeringClose);
  app.register(plugins.requestId);
  app.register(plugins.loadShedding, {
    maxEventLoopDelayMs: config.maxEventLoopDelay,
    sampleIntervalMs: options.eventLoopSampleMs ?? DEFAULT_LOAD_SHEDDING.sampleIntervalMs,
  });
  app.register(plugins.methodOverride, { allowed: config.methodOverride });
  app.register(plugins.cors, { origins: config.corsOrigin });
  app.register(plugins.accessControl, {
    keys: config.apiKeys,
    publicReads: config.publicReads,
    ruled: catalog.collections.some((collection) => Object.keys(collection.rules).length > 0),
    ...(accounts && { tokens: accounts.verified, fileTokens: accounts.verifiedFiles }),
  });
  app.register(plugins.rateLimit, {
    max: config.rateLimitMax,
    windowMs: config.rateLimitWindow,
    redisUrl: config.redisUrl,
  });
  app.register(plugins.jsonBody, {
    maxDepth: config.maxDepth,
    maxFieldNameLength: config.maxFieldNameLength,
    maxRecordFields: config.maxRecordFields,
  });
  app.register(plugins.multipartBody, { files: fileStorage !== undefined });
  app.register(openApi, {
    catalog,
    guards: { keys: config.apiKeys.length > 0, rateLimit: config.rateLimitMax > 0, tokens: accounts !== undefined },
    methodOverride: config.methodOverride,
    publicUrl: config.publicUrl,
  });
  app.register(plugins.metrics, { store });
  const drain = mailDrainOf(app, config, catalog, store);
  app.register(mail, { outbox: store.mail, drain });
  if (fileStorage) {
    // Only a catalog with file fields holds file storage, and so a reaper and a sweep.
    const graceMs = config.filesSweepGraceSeconds * 1000;
    app.register(fileUpkeep, { store, storage: fileStorage, catalog, graceMs });
  }
  // One reader of each collection's log in the process, for the change feeds and the webhooks alike.
  const hubs = new ChangeHubs(store.changes, catalog);
  app.register(webhookDelivery, { store, catalog, hubs, config });
  app.register(apiDocs, { publicUrl: config.publicUrl });
  app.register(browserConsole);
  app.register(serviceRoutes, { store, catalog });
  const hasher = accounts?.hasher;
  const mailQueue = { available: mailAvailable(config), queued: (dueAt?: number) => drain?.wake(dueAt) };
  app.register(recordRoutes, { store, catalog, config, hubs, mail: mailQueue, files, ...(hasher && { hasher }) });
  if (accounts && hasher) {
    const { signInMaxFailures: maxFailures, redisUrl } = config;
    const { tokens } = accounts;
    const { fileTokenSeconds } = config;
    app.register(accountRoutes, {
      store,
      catalog,
      tokens,
      hasher,
      maxFailures,
      redisUrl,
      mail: mailQueue,
      fileTokenSeconds,
    });
    app.register(verifyRoutes, { store, catalog, mail: mailQueue, redisUrl });
    const { publicUrl } = config;
    const clock = options.now && { now: options.now };
    app.register(providerRoutes, {
      store,
      catalog,
      config,
      tokens,
      providers,
      publicUrl,
      appOrigins: appOriginsOf(config),
      ...clock,
    });
  }
  // Last, so that the document lists them after the collections' operations.
  // The delivery (plugins/webhooks/) hears of each change the routes make at once.
  const notify = (id: number) => app.webhookDelivery.notify(id);
  app.register(webhookRoutes, { webhooks: store.webhooks, catalog, settings: config, notify });
  // Loads them now, so that a plugin that cannot start fails the build (and closes the store).
  await app.after();
  return app;
}

/** Makes the store's declared webhooks the file's, and says which it removed (those the file no longer holds). */
async function declareWebhooks(app: FastifyInstance, webhooks: WebhookTables, config: Config, declared: NewWebhook[]) {
  const removed = await webhooks.declare(declared, Date.now());
  if (removed.length > 0) app.log.info({ removed }, `Webhooks no longer declared, removed: ${removed.join(', ')}`);
  const total = await webhooks.count();
  if (total > config.webhooksMax) {
    app.log.warn(
      `${total} webhooks, more than WEBHOOKS_MAX (${config.webhooksMax}): none can be made until some are removed`,
    );
  }
}
