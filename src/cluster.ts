/**
 * `--workers N`: N processes on one machine serving one port through node:cluster. The
 * primary only supervises; each worker is a whole restock (app, store, pool) and shares
 * nothing with the others but the database.
 */
import cluster, { type Worker } from 'node:cluster';
import { serveClusterMetrics } from './http/plugins/metrics/cluster-metrics.js';

/** Where the primary reports what happens to its workers. */
export interface SupervisorLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Forks `count` workers and keeps them running: a worker that dies after it started
 * serving is replaced; one that dies before (a bad setting, an unreachable database)
 * stops them all, since its siblings would fail the same way. SIGTERM and SIGINT are
 * passed on, and the primary exits once every worker has shut down: 0 if all did cleanly.
 * `onServing` is called with the port once, when the first worker listens.
 */
export function superviseWorkers(count: number, log: SupervisorLog, onServing?: (port: number) => void): void {
  const listening = new WeakSet<Worker>();
  let stopping = false;
  let failed = false;
  let serving = false;

  const fork = () => {
    const worker = cluster.fork();
    worker.once('listening', ({ port }) => {
      listening.add(worker);
      // Once for the whole run: the first worker to listen says the port is served.
      if (!serving) onServing?.(port);
      serving = true;
    });
  };
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'stopping workers');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };

  cluster.on('exit', (worker, code, signal) => {
    const clean = code === 0 && !signal;
    if (!clean) failed = true;
    if (!stopping) {
      if (listening.has(worker)) {
        log.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
        failed = false;
        fork();
      } else {
        log.error({ pid: worker.process.pid, code, signal }, 'worker failed to start; stopping');
        stopAll('SIGTERM');
      }
    }
    if (Object.keys(cluster.workers ?? {}).length === 0 && stopping) process.exit(failed ? 1 : 0);
  });
  process.once('SIGTERM', () => stopAll('SIGTERM'));
  process.once('SIGINT', () => stopAll('SIGINT'));

  serveClusterMetrics();
  log.info({ workers: count }, 'starting workers');
  for (let i = 0; i < count; i++) fork();
}

/** Whether this process is one worker of several, which leaves the start's line to the primary. */
export function isWorker(): boolean {
  return cluster.isWorker;
}

/** Whether this process is the supervising primary of a multi-process run. */
export function isPrimary(workers: number): boolean {
  return workers > 1 && cluster.isPrimary;
}
