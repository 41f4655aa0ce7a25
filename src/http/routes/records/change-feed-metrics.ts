/**
 * The change feeds on `/metrics`: how many are open, and how many clients were cut off and
 * why, so that an operator sees subscribers falling behind before their users do.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge } from 'prom-client';

/** Why a feed cut its client off: it let a MiB wait, it read nothing for two heartbeats, or the log failed. */
export type CutReason = 'buffer' | 'stall' | 'failure';

export interface ChangeFeedMetrics {
  cut(collection: string, reason: CutReason): void;
  /** Counts a feed that ended with the other requests (hijacked, it skips the hook that counts them). */
  answered(request: FastifyRequest, reply: FastifyReply): void;
}

/** Registers the feeds' metrics; `open` holds the feeds open now, by collection. */
export function registerChangeFeedMetrics(
  app: FastifyInstance,
  open: () => ReadonlyMap<string, number>,
): ChangeFeedMetrics {
  const { registry, prefix, countResponse } = app.metricsRegistry;
  new Gauge({
    name: `${prefix}change_feeds_open`,
    help: 'Change feeds open now, by collection.',
    labelNames: ['collection'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [collection, count] of open()) this.set({ collection }, count);
    },
  });
  const cuts = new Counter({
    name: `${prefix}change_feed_cuts_total`,
    help: 'Change feed clients cut off, by collection and reason: buffer (a MiB waited unsent), stall (nothing read for two heartbeats), failure (the log could not be read).',
    labelNames: ['collection', 'reason'],
    registers: [registry],
  });
  return { cut: (collection, reason) => cuts.inc({ collection, reason }), answered: countResponse };
}
