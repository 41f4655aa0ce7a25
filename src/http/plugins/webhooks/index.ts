/**
 * Webhooks' delivery in the server: the worker (src/records/webhooks/) from the app's start
 * to its close, the sender it sends through, and their metrics. It follows the change log
 * through the hubs the change feeds use, so a process reads each collection's log once.
 * The routes that manage webhooks tell it of a change through `app.webhookDelivery.notify`.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../../config/index.js';
import type { Catalog } from '../../../core/catalog.js';
import { VERSION } from '../../../core/version.js';
import type { ChangeHubs } from '../../../records/change-hub.js';
import { DeliverySlots } from '../../../records/webhooks/delivery-slots.js';
import { WebhookSender } from '../../../records/webhooks/webhook-sender.js';
import { WebhookWorker } from '../../../records/webhooks/webhook-worker.js';
import type { Store } from '../../../store/store.js';
import { registerWebhookMetrics } from './webhook-metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** How the webhooks' routes tell the delivery of a webhook made, changed or replayed. */
    webhookDelivery: { notify(id: number): void };
  }
}

/** Seconds as whole milliseconds: the store keeps times as integers (a fraction is refused by PostgreSQL's bigint). */
const ms = (seconds: number) => Math.round(seconds * 1000);

/** The most time between a delivery and the store hearing of it (what a crash may send twice). */
const SETTLE_MS = 100;
/** Changes a webhook takes ahead of its stored place, per collection, per in-flight delivery it may have. */
const WINDOW_PER_SEND = 4;

export interface WebhookDeliveryOptions {
  store: Pick<Store, 'webhooks'>;
  catalog: Catalog;
  hubs: ChangeHubs;
  config: Config;
}

export const webhookDelivery = fp(deliverWebhooks, {
  name: 'restock-webhook-delivery',
  fastify: '5.x',
  dependencies: ['restock-metrics'],
});

async function deliverWebhooks(app: FastifyInstance, { store, catalog, hubs, config }: WebhookDeliveryOptions) {
  const sender = new WebhookSender({
    allowPrivate: config.webhooksAllowPrivate,
    timeoutMs: ms(config.webhooksTimeoutSeconds),
    connectTimeoutMs: ms(config.webhooksConnectTimeoutSeconds),
    maxSockets: config.webhooksInFlightPerWebhook,
    userAgent: `restock/${VERSION}`,
  });
  let worker: WebhookWorker | undefined;
  const metrics = registerWebhookMetrics(app, () => worker?.lags() ?? new Map(), store.webhooks);
  worker = new WebhookWorker({
    tables: store.webhooks,
    hubs,
    catalog,
    send: (target, message) => sender.send(target, message),
    slots: new DeliverySlots(config.webhooksInFlight),
    settings: {
      perWebhook: config.webhooksInFlightPerWebhook,
      window: config.webhooksInFlightPerWebhook * WINDOW_PER_SEND,
      maxBodyBytes: config.webhooksMaxBodyBytes,
      backoffMs: ms(config.webhooksBackoffSeconds),
      retryMs: ms(config.webhooksRetrySeconds),
      timeoutMs: ms(config.webhooksTimeoutSeconds),
      flushMs: SETTLE_MS,
      maxFieldNameLength: config.maxFieldNameLength,
    },
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    metrics,
    log: app.log,
    now: Date.now,
    leaseMs: ms(config.webhooksLeaseSeconds),
    deadLetterMs: config.webhooksDeadLetterHours * 3_600_000,
  });
  const running = worker;
  app.decorate('webhookDelivery', { notify: (id: number) => running.notify(id) });
  app.addHook('onReady', async () => running.start());
  app.addHook('preClose', async () => {
    await running.stop();
    sender.close();
  });
}
