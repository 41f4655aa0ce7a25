/**
 * Metrics under `--workers`: a scrape reaches one worker, but must count every worker's
 * requests, so the worker asks the primary, whose prom-client AggregatorRegistry sums them.
 */
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry } from 'prom-client';

const METRICS_REQUEST = 'restock:metrics-request';
const METRICS_RESPONSE = 'restock:metrics-response';

interface MetricsMessage {
  type?: string;
  id?: string;
  text?: string;
  error?: string;
}

/**
 * In the primary of `--workers`: answers a worker's request for the metrics of all the
 * workers, summed by prom-client's AggregatorRegistry (a scrape reaches one worker, but
 * must count every worker's requests).
 */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: MetricsMessage) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_RESPONSE, id: message.id, text }),
      (error: Error) => worker.send({ type: METRICS_RESPONSE, id: message.id, error: error.message }),
    );
  });
}

/** Asks the primary for every worker's metrics combined. */
export function allWorkersMetrics(): Promise<string> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const onMessage = (message: MetricsMessage) => {
      if (message?.type !== METRICS_RESPONSE || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (message.error !== undefined) reject(new Error(`collecting the workers' metrics failed: ${message.error}`));
      else resolve(message.text ?? '');
    };
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error("the primary did not answer with the workers' metrics"));
    }, 10_000);
    process.on('message', onMessage);
    process.send?.({ type: METRICS_REQUEST, id });
  });
}
