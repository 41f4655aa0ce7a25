/**
 * The line `restock serve` prints on a terminal once it listens: where to point a browser
 * (the API, the console, the reference page) and which database it serves. Logs stay JSON
 * lines for machines; this is for the person who just typed `npm start`.
 */
import { VERSION } from '../core/version.js';
import { redact, sqlitePathOf } from '../store/open-store.js';

/** The address a browser can open for a server listening on `host` and `port`. */
export function browsableOrigin(host: string, port: number): string {
  // A wildcard address listens on every interface but cannot be opened; this machine's can.
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/** The database `url` names, as a person reads it: `SQLite ./data/restock.db`, or the PostgreSQL URL without its password. */
export function databaseLabel(url: string): string {
  const path = sqlitePathOf(url);
  if (path === undefined) return `PostgreSQL ${redact(url)}`;
  return path === ':memory:' ? 'SQLite in memory, gone at exit' : `SQLite ${path}`;
}

/** The one line of a start on a terminal. The console is the page `/` sends to a browser. */
export function startBanner(host: string, port: number, databaseUrl: string): string {
  const origin = browsableOrigin(host, port);
  return `restock ${VERSION} serving ${origin} on ${databaseLabel(databaseUrl)} — in a browser, ${origin}/ is the console and ${origin}/docs/ the reference`;
}
