/**
 * Prometheus metrics at `/metrics`, through prom-client: requests counted by route
 * template, effective method, whether they were tunnelled, and status; their latency as a
 * histogram; the process's own metrics; and whatever gauges the store reports.
 */
import cluster from 'node:cluster';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { Type } from 'typebox';
import type { Store, StoreGauge } from '../../../store/store.js';
import { registerPaths } from '../../paths.js';
import { isTunnelled } from '../method-override/index.js';
import { allWorkersMetrics } from './cluster-metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Where plugins registered after this one add metrics of their own, and how a reply
     * that bypasses the hooks (a hijacked one, as a change feed's) is counted.
     */
    metricsRegistry: {
      registry: Registry;
      prefix: string;
      countResponse(request: FastifyRequest, reply: FastifyReply): void;
    };
  }
}

export interface MetricsOptions {
  /** The store whose gauges are reported. */
  store: Store;
  /** Prefix of every metric name (default `restock_`). */
  prefix?: string;
  /** Upper bounds of the latency histogram's buckets, in seconds. */
  buckets?: number[];
  /** Whether to add Node's process metrics: CPU, memory, event loop lag, GC (default true). */
  processMetrics?: boolean;
}

/** Requests answered without a route (404s) are counted under this route label. */
export const UNMATCHED_ROUTE = 'unmatched';

const LABELS = ['route', 'method', 'tunnelled', 'status'] as const;

/** Where a request that never reached a route is counted (one Fastify refused as it arrived). */
const NO_ROUTE = {};

/** One label set of the request metrics: its count so far, what the counter has of it, its histogram. */
interface Series {
  labels: Record<(typeof LABELS)[number], string>;
  count: number;
  reported: number;
  time: (seconds: number) => void;
}

/**
 * Counts every response (one onResponse hook) and serves `/metrics`. Each app has its own
 * registry, so that several apps in one process (tests) never share counts. In a worker of
 * `--workers`, a scrape answers with every worker's metrics combined, through the primary
 * (./cluster-metrics.ts). `/metrics` stays out of the access log, like the probes, and
 * needs a key even where PUBLIC_READS lets reads in: it shows the traffic.
 *
 * Registered before the plugins whose routes live in scopes of their own (the docs, the
 * console): a scope takes the hooks there are when it is made.
 */
export const metrics = fp(countAndServe, {
  name: 'restock-metrics',
  fastify: '5.x',
  dependencies: ['restock-problems', 'restock-openapi'],
});

async function countAndServe(app: FastifyInstance, options: MetricsOptions): Promise<void> {
  const { store } = options;
  const prefix = options.prefix ?? 'restock_';
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix });

  // Each series' count, kept in the series below and handed to the counter when scraped:
  // prom-client hashes a series' labels again on every `inc`, bound to them or not.
  const series = new WeakMap<object, Map<string, Map<number, Series>>>();
  const all: Series[] = [];
  new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests answered, by route template, effective method, tunnelled or not, and status.',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      for (const one of all) {
        if (one.count === one.reported) continue;
        this.inc(one.labels, one.count - one.reported);
        one.reported = one.count;
      }
    },
  });
  const duration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time from receiving a request to sending its response, in seconds.',
    labelNames: LABELS,
    buckets: options.buckets ?? [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const dropped = new Counter({
    name: `${prefix}connections_dropped_total`,
    help: 'Connections closed as they arrived, because MAX_CONNECTIONS were open.',
    registers: [registry],
  });
  app.server.on('drop', () => dropped.inc());
  for (const gauge of store.gauges ?? []) registerStoreGauge(registry, `${prefix}store_`, gauge);
  if (cluster.isWorker) {
    // Lets the primary's AggregatorRegistry collect this registry (and starts listening for it).
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
  }

  // The series of each label set, found by the route's own config object, the method, then
  // the status (tunnelled ones apart): no key is built per request. Label sets are few
  // (route templates, not paths).
  const seriesOf = (request: FastifyRequest, reply: FastifyReply): Series => {
    const { config, url } = request.routeOptions;
    const tunnelled = isTunnelled(request.raw);
    const status = reply.statusCode;
    const route = config ?? NO_ROUTE;
    let byMethod = series.get(route);
    if (!byMethod) {
      byMethod = new Map();
      series.set(route, byMethod);
    }
    let byStatus = byMethod.get(request.method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(request.method, byStatus);
    }
    const key = tunnelled ? -status : status;
    let found = byStatus.get(key);
    if (!found) {
      const labels = {
        route: url ?? UNMATCHED_ROUTE,
        method: request.method,
        tunnelled: String(tunnelled),
        status: String(status),
      };
      found = { labels, count: 0, reported: 0, time: duration.labels(labels).observe };
      byStatus.set(key, found);
      all.push(found);
    }
    return found;
  };
  const countResponse = (request: FastifyRequest, reply: FastifyReply) => {
    const found = seriesOf(request, reply);
    found.count++;
    found.time(reply.elapsedTime / 1000);
  };
  app.addHook('onResponse', (request, reply, done) => {
    countResponse(request, reply);
    done();
  });
  // The routes' own metrics (the change feeds') join this registry, under the same prefix.
  app.decorate('metricsRegistry', { registry, prefix, countResponse });

  registerPaths(app, [
    {
      url: '/metrics',
      logLevel: 'warn',
      policy: { keyed: true },
      operations: {
        GET: {
          docs: {
            tags: ['service'],
            summary: 'Prometheus metrics',
            operationId: 'getMetrics',
            description:
              "The process's (or, in a cluster, every worker's) counters and gauges in the Prometheus text " +
              'format: requests, latencies, the store, the change feeds. With API keys, a key must be sent.',
            response: {
              200: {
                description: 'Metrics in the Prometheus text format.',
                content: { [registry.contentType.split(';', 1)[0] as string]: { schema: Type.String() } },
              },
            },
          },
          handler: async (_request, reply) =>
            reply
              .type(registry.contentType)
              .send(cluster.isWorker ? await allWorkersMetrics() : await registry.metrics()),
        },
      },
    },
  ]);
}

/** A store's gauge, read at each scrape. */
function registerStoreGauge(registry: Registry, prefix: string, gauge: StoreGauge): void {
  new Gauge({
    name: `${prefix}${gauge.name}`,
    help: gauge.help,
    labelNames: gauge.labelNames ?? [],
    aggregator: gauge.aggregator ?? 'sum',
    registers: [registry],
    collect() {
      const value = gauge.read();
      if (typeof value === 'number') {
        this.set(value);
        return;
      }
      this.reset();
      for (const { labels, value: one } of value) this.set(labels, one);
    },
  });
}
