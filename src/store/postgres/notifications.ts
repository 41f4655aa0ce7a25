/**
 * Listening for changes committed by any instance: one connection of its own (a pooled one
 * would be handed to other work) LISTENs on the change log's channel and wakes its watchers
 * (the change feeds and the files' reaper, through one shared watch: ../sql/change-log-sql.ts)
 * with the collection each notification names. A poll once a second covers what a broken
 * connection missed until it is back (it reconnects after a second).
 */
import pg from 'pg';
import { CHANGES_CHANNEL } from './change-triggers.js';

const RECONNECT_MS = 1000;
const POLL_MS = 1000;

/** Starts listening; returns how to stop. */
export function listenForChanges(url: string, wake: (collection?: string) => void): () => void {
  let client: pg.Client | undefined;
  let stopped = false;
  const reconnect = () => {
    if (!stopped) setTimeout(connect, RECONNECT_MS).unref();
  };
  const connect = async () => {
    if (stopped) return;
    const fresh = new pg.Client({ connectionString: url, application_name: 'restock-changes', keepAlive: true });
    fresh.on('notification', (message) => wake(message.payload));
    // An error is followed by 'end', which reconnects; without a listener it would crash the process.
    fresh.on('error', () => {});
    fresh.on('end', () => {
      if (client === fresh) client = undefined;
      reconnect();
    });
    try {
      await fresh.connect();
      await fresh.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (stopped) {
        await fresh.end();
        return;
      }
      client = fresh;
      // Whatever committed while no connection listened.
      wake();
    } catch {
      await fresh.end().catch(() => {});
    }
  };
  void connect();
  const poll = setInterval(() => wake(), POLL_MS);
  poll.unref();
  return () => {
    stopped = true;
    clearInterval(poll);
    void client?.end().catch(() => {});
  };
}
