/**
 * The webhooks on `/metrics`, per webhook (by id; WEBHOOKS_MAX bounds how many): deliveries
 * that went through and attempts that failed, retries, dead letters, how long the oldest
 * change not yet delivered has waited, and which webhooks are paused. The lag is reported by
 * the instance delivering a webhook; with several processes, the highest counts.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge } from 'prom-client';
import type { WebhookMetrics } from '../../../records/webhooks/delivery-outcomes.js';
import type { WebhookTables } from '../../../store/webhook-model.js';

export function registerWebhookMetrics(
  app: FastifyInstance,
  lags: () => ReadonlyMap<number, number>,
  tables: Pick<WebhookTables, 'list'>,
): WebhookMetrics {
  const { registry, prefix } = app.metricsRegistry;
  const counter = (name: string, help: string, labelNames: string[] = ['webhook']) =>
    new Counter({ name: `${prefix}webhook_${name}`, help, labelNames, registers: [registry] });
  const deliveries = counter(
    'deliveries_total',
    'Webhook delivery attempts by webhook and outcome: delivered (2xx) or failed.',
    ['webhook', 'outcome'],
  );
  const retries = counter('retries_total', 'Webhook delivery attempts that were retries, by webhook.');
  const dead = counter('dead_letters_total', 'Webhook deliveries given up (dead letters), by webhook.');
  new Gauge({
    name: `${prefix}webhook_lag_seconds`,
    help: 'How long the oldest change not yet delivered to a webhook has waited, by webhook (0: none waits).',
    labelNames: ['webhook'],
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      for (const [id, seconds] of lags()) this.set({ webhook: String(id) }, seconds);
    },
  });
  new Gauge({
    name: `${prefix}webhook_paused`,
    help: '1 for a webhook that is paused (it failed for the whole retry time, or a write key paused it), else 0.',
    labelNames: ['webhook'],
    registers: [registry],
    aggregator: 'max',
    async collect() {
      const webhooks = await tables.list();
      this.reset();
      for (const webhook of webhooks) this.set({ webhook: String(webhook.id) }, webhook.pausedAt === null ? 0 : 1);
    },
  });
  return {
    delivered: (id) => deliveries.inc({ webhook: String(id), outcome: 'delivered' }),
    failed: (id) => deliveries.inc({ webhook: String(id), outcome: 'failed' }),
    retried: (id) => retries.inc({ webhook: String(id) }),
    dead: (id) => dead.inc({ webhook: String(id) }),
  };
}
