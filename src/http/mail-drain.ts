/**
 * The app's mail drain, made from the settings: undefined when mail is unavailable (no
 * SMTP_URL, no MAIL_LOG_LINKS). Links name the server's console unless APP_URL says
 * otherwise, with the port it listens on (chosen at listen when PORT is 0).
 */
import type { FastifyInstance } from 'fastify';
import { appUrlOf, type Config } from '../config/index.js';
import type { Catalog } from '../core/catalog.js';
import { mailComposers } from '../records/accounts/index.js';
import { MailDrain, mailSender } from '../records/mail/index.js';
import type { Store } from '../store/store.js';

export function mailDrainOf(app: FastifyInstance, config: Config, catalog: Catalog, store: Store) {
  const leaseMs = config.mailLeaseSeconds * 1000;
  // A send must fail well before its lease ends, or another sender could take the mail meanwhile.
  const connections = config.mailConnections;
  const pool = { connections, timeoutMs: Math.min(30_000, leaseMs / 3) };
  const sender = mailSender(config, app.log, pool);
  if (!sender) return undefined;
  const port = () => {
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : config.port;
  };
  return new MailDrain({
    outbox: store.mail,
    composers: mailComposers({
      store,
      catalog,
      verifyTokenMs: config.verifyTokenHours * 3_600_000,
      resetTokenMs: config.resetTokenMinutes * 60_000,
    }),
    sender,
    accountOf: (plural) => catalog.byPlural(plural)?.account,
    appName: config.appName,
    linkBase: () => appUrlOf({ ...config, port: port() }),
    log: app.log,
    // Twice the connections: while some mails are sent, others are composed (a read and a write each).
    concurrency: connections * 2,
    leaseMs,
    pollMs: config.mailPollSeconds * 1000,
    retryMs: config.mailRetrySeconds * 1000,
    maxAttempts: config.mailMaxAttempts,
  });
}
