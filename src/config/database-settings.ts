/** The settings of the database connection, declared in their place among ./settings.ts's. */
import { integer, text } from './parsers.js';
import type { Setting } from './setting.js';

export const DATABASE_SETTINGS = {
  databaseUrl: {
    default: 'sqlite:./data/restock.db',
    parse: text,
    group: 'database',
    help: 'the store: `sqlite:PATH` (created on first start), `sqlite::memory:` or `postgres://USER:PASSWORD@HOST:PORT/DB`',
  },
  databasePoolSize: {
    default: '10',
    parse: integer(1, 1000),
    group: 'database',
    help: 'PostgreSQL connections per process for requests (it holds up to five more of its own: readiness, change feeds)',
  },
  databaseConnectTimeout: {
    default: '5000',
    parse: integer(1, 600_000),
    group: 'database',
    help: 'milliseconds to wait for a PostgreSQL connection before answering `503`',
  },
  databaseStatementTimeout: {
    default: '15000',
    parse: integer(1, 3_600_000),
    group: 'database',
    help: 'milliseconds a statement may run before it is stopped (`503`); on SQLite, the reads that may take long',
  },
  databaseLockTimeout: {
    default: '5000',
    parse: integer(1, 600_000),
    group: 'database',
    help: 'SQLite: milliseconds a write waits for a write lock another process holds (a command, another instance) before answering `503`',
  },
} satisfies Record<string, Setting<unknown>>;
