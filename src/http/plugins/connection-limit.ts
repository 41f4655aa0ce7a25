/**
 * A cap on the connections open at once, below the process's open file limit: one past it
 * is closed as it arrives (Node's `server.maxConnections`). A flood of connections then
 * costs refusals, never the descriptors that the store, the logs and Node itself need: out
 * of them, Node throws EMFILE from places no handler reaches, and the process exits.
 */
import { readFileSync } from 'node:fs';
import fp from 'fastify-plugin';

/** Descriptors kept for all but client connections: the store's files and connections, logs, workers, Redis. */
export const RESERVED_DESCRIPTORS = 128;

export interface ConnectionLimitOptions {
  /** The cap; 0: the open file limit less {@link RESERVED_DESCRIPTORS}, where the system tells it. */
  maxConnections: number;
}

export const connectionLimit = fp<ConnectionLimitOptions>(
  async (app, options) => {
    const cap = options.maxConnections > 0 ? options.maxConnections : automaticCap();
    if (cap !== undefined) app.server.maxConnections = cap;
  },
  { name: 'restock-connection-limit', fastify: '5.x' },
);

/**
 * The open file limit less the reserve, at least one. Read by hand from Linux's
 * /proc/self/limits: Node has no getrlimit, and no maintained package reads it. Elsewhere,
 * or where the limit is unlimited, there is no cap.
 */
export function automaticCap(limits = readLimits()): number | undefined {
  const soft = /^Max open files\s+(\d+)/m.exec(limits ?? '')?.[1];
  if (soft === undefined) return undefined;
  return Math.max(1, Number(soft) - RESERVED_DESCRIPTORS);
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}
