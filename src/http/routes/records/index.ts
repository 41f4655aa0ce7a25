/**
 * The record routes: every collection's paths (./collection-routes.ts), with what they share:
 * the Idempotency-Keys and their sweep, and the caps on costly list queries.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../../config/index.js';
import type { Catalog } from '../../../core/catalog.js';
import type { PasswordHasher } from '../../../records/accounts/index.js';
import type { ChangeHubs } from '../../../records/change-hub.js';
import type { FileSettings } from '../../../records/files/index.js';
import { Thumbnails } from '../../../records/files/thumbnails.js';
import { InFlightGate } from '../../../records/in-flight-gate.js';
import { type MailQueue, recordKits, recordLimitsOf } from '../../../records/operations/index.js';
import type { Store } from '../../../store/store.js';
import { registerFileRoutes } from '../files/index.js';
import { registerBatchRoute } from './batch/index.js';
import { registerChangeFeedMetrics } from './change-feed-metrics.js';
import { registerChangeLogTrim } from './change-log-trim.js';
import { registerCollectionRoutes } from './collection-routes.js';
import { DEFAULT_IDEMPOTENCY_OPTIONS, registerIdempotencySweep } from './idempotency.js';

export interface RecordRoutesOptions {
  store: Store;
  catalog: Catalog;
  /** Hashes account passwords; absent when no collection holds accounts. */
  hasher?: PasswordHasher;
  /** Where account mail goes: whether it can, and how its sender is woken. */
  mail?: MailQueue;
  /** Where files go; absent when no collection has file fields. */
  files?: FileSettings | undefined;
  /** The process's readers of the change log, which the feeds share with the webhooks. */
  hubs: ChangeHubs;
  config: Pick<
    Config,
    | 'maxDepth'
    | 'maxRecordFields'
    | 'idempotencyKeyHours'
    | 'maxCostlyQueries'
    | 'maxCostlyQueriesPerClient'
    | 'maxFieldNameLength'
    | 'maxRecordBytes'
    | 'bodyLimit'
    | 'maxPageBytes'
    | 'maxBulkRecords'
    | 'maxBatchOperations'
    | 'databaseStatementTimeout'
    | 'maxIndexedValueBytes'
    | 'eventsRetentionHours'
    | 'eventsHeartbeatSeconds'
    | 'eventsMaxFeeds'
    | 'eventsMaxFeedsPerClient'
  >;
}

/**
 * Bodies come through the JSON and multipart body plugins, and Idempotency-Keys are kept per caller, as
 * access control identifies the caller, and the change feeds count themselves on /metrics:
 * hence those dependencies.
 */
export const recordRoutes = fp(serveRecords, {
  name: 'restock-record-routes',
  fastify: '5.x',
  dependencies: [
    'restock-problems',
    'restock-openapi',
    'restock-json-body',
    'restock-multipart-body',
    'restock-access-control',
    'restock-metrics',
  ],
});

async function serveRecords(app: FastifyInstance, options: RecordRoutesOptions): Promise<void> {
  const { store, catalog, config } = options;
  const idempotency = {
    ...DEFAULT_IDEMPOTENCY_OPTIONS,
    ttlMs: config.idempotencyKeyHours * 3_600_000,
  };
  registerIdempotencySweep(app, store.idempotency, idempotency);
  const costlyQueries = new InFlightGate(
    { total: config.maxCostlyQueries, perClient: config.maxCostlyQueriesPerClient },
    { kind: 'too-many-costly-queries', noun: 'costly queries running', retry: 'once one has finished' },
  );
  // One kit per collection (its one RecordAccess among them): its requests, a batch's operations on it and expansions into it share it.
  const kitOf = recordKits(catalog, {
    store,
    costlyQueries,
    hasher: options.hasher,
    mail: options.mail,
    files: options.files,
    limits: recordLimitsOf(config),
  });
  const { maxDepth, maxFieldNameLength, maxRecordFields } = config;
  const open = new Map<() => void, string>();
  const feeds = {
    log: store.changes,
    hubs: options.hubs,
    heartbeatMs: config.eventsHeartbeatSeconds * 1000,
    open,
    gate: new InFlightGate(
      { total: config.eventsMaxFeeds, perClient: config.eventsMaxFeedsPerClient },
      { kind: 'too-many-feeds', noun: 'change feeds open', retry: 'once one has closed' },
    ),
    metrics: registerChangeFeedMetrics(app, () => countBy(open.values())),
  };
  registerChangeLogTrim(app, store.changes, config.eventsRetentionHours);
  // Feeds never end on their own: the server ends them as it closes, or it would wait for them.
  app.addHook('preClose', async () => {
    for (const end of [...open.keys()]) end();
    await feeds.hubs.close();
  });
  for (const collection of catalog.collections) {
    registerCollectionRoutes(app, collection, {
      kit: kitOf(collection),
      idempotencyKeys: store.idempotency,
      idempotency,
      feeds,
      bodyLimits: { maxDepth, maxFieldNameLength, maxRecordFields },
    });
  }
  const { files } = options;
  if (files) {
    const thumbnails = new Thumbnails({ maxPixels: files.maxPixels });
    for (const collection of catalog.collections) {
      if (collection.files.length > 0) registerFileRoutes(app, kitOf(collection), thumbnails);
    }
  }
  registerBatchRoute(app, {
    store,
    catalog,
    kitOf,
    idempotency,
    maxOperations: config.maxBatchOperations,
    budgetMs: config.databaseStatementTimeout,
    maxBodyBytes: config.bodyLimit,
    maxAnswerBytes: config.maxPageBytes,
  });
}

function countBy(names: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}
