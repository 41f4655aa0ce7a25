/**
 * The connection `/readyz` asks "does the database answer?" on: one of its own, outside the
 * pool, so that readiness never queues behind requests holding every pooled connection
 * (a load balancer would take a busy instance for a dead one). Opened on first use, and
 * again after it breaks.
 */
import pg from 'pg';
import type { StoreOptions } from '../store.js';

export interface ReadinessProbe {
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function readinessProbe(
  url: string,
  options: Pick<StoreOptions, 'connectTimeoutMs' | 'statementTimeoutMs'>,
): ReadinessProbe {
  let connecting: Promise<pg.Client> | undefined;
  const connect = async () => {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      statement_timeout: options.statementTimeoutMs,
      query_timeout: options.statementTimeoutMs + 1000,
      application_name: 'restock readiness',
    });
    // Without a listener, an idle connection that breaks would crash the process; the next
    // ping finds it broken and opens another.
    client.on('error', () => {});
    await client.connect();
    return client;
  };
  return {
    async ping() {
      connecting ??= connect();
      const current = connecting;
      try {
        await (await current).query('SELECT 1');
      } catch (error) {
        if (connecting === current) connecting = undefined;
        void current.then((client) => client.end()).catch(() => {});
        throw error;
      }
    },
    async close() {
      const open = connecting;
      connecting = undefined;
      await open?.then((client) => client.end()).catch(() => {});
    },
  };
}
