/**
 * The settings of mail (verification, password reset, email change), declared in their place
 * among ./settings.ts's. Mail goes through a durable outbox (src/records/mail/), so that a
 * request never waits for SMTP; these say where it goes, what it says and how it is retried.
 */
import { ConfigError } from '../core/config-error.js';
import { integer, type Parser, seconds, text, yesNo } from './parsers.js';
import type { Setting } from './setting.js';

const smtpUrl: Parser<string> = (raw, name) => {
  const value = raw.trim();
  if (value !== '' && !/^smtps?:\/\/[^/\s]+/.test(value)) {
    throw new ConfigError(`${name} must be an smtp:// or smtps:// URL (smtp://user:pass@host:587), got another text`);
  }
  return value;
};

/** An http(s) base of links, which may carry a query (`?` or `&` joins the link's own). */
const linkBase: Parser<string> = (raw, name) => {
  const value = raw.trim();
  if (value === '') return '';
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol) || value.includes('#')) {
    throw new ConfigError(`${name} must be an http:// or https:// URL without a fragment, got "${raw}"`);
  }
  return value;
};

export const MAIL_SETTINGS = {
  smtpUrl: {
    default: '',
    parse: smtpUrl,
    group: 'server',
    help: 'where mail is sent, `smtp://user:password@host:587` (or `smtps://` for TLS from the start); none: flows that send mail (sign-up with `verify`, password reset, email change) answer `503` (`mail-unavailable`)',
  },
  mailFrom: {
    default: 'restock <no-reply@localhost>',
    parse: text,
    group: 'server',
    help: 'the sender of mail, `Name <address>`',
  },
  appName: {
    default: 'restock',
    parse: text,
    group: 'server',
    help: 'the app’s name as mail names it (`{{appName}}` in templates)',
  },
  appUrl: {
    default: '',
    parse: linkBase,
    group: 'server',
    help: 'the page links in mail open, given `action` (`verify`, `reset` or `email`), `collection` and `token` in its query; none: the server’s own console (`PUBLIC_URL`, else `http://HOST:PORT`, then `/console/`)',
  },
  mailLogLinks: {
    default: 'false',
    parse: yesNo,
    switch: true,
    group: 'server',
    help: 'development only: without `SMTP_URL`, log each mail’s link (at `info`) in place of sending it; never use it where the log is read by others',
  },
  mailConnections: {
    default: '5',
    parse: integer(1, 100),
    group: 'server',
    help: 'connections to the SMTP server each instance keeps open at most, and so mails it sends at once (twice as many are being composed)',
  },
  mailRetrySeconds: {
    default: '30',
    parse: seconds(0.01, 3600),
    group: 'server',
    help: 'seconds before a mail that failed is tried again, doubled at each failure (with jitter) up to an hour',
  },
  mailMaxAttempts: {
    default: '10',
    parse: integer(1, 100),
    group: 'server',
    help: 'tries before a mail is given up (logged without its link)',
  },
  mailLeaseSeconds: {
    default: '60',
    parse: seconds(0.05, 3600),
    group: 'server',
    help: 'seconds a sender holds the mail it took: one that dies leaves it to be sent by another (or after a restart) when they end',
  },
  mailPollSeconds: {
    default: '5',
    parse: seconds(0.01, 3600),
    group: 'server',
    help: 'seconds between looks at the outbox for mail queued by other instances, or due again (mail this process queues is sent at once)',
  },
  verifyTokenHours: {
    default: '24',
    parse: integer(1, 24 * 30),
    group: 'server',
    help: 'hours a verification link is valid',
  },
} satisfies Record<string, Setting<unknown>>;

/** The link base mail uses: APP_URL, else the server's own console. */
export function appUrlOf(config: { appUrl: string; publicUrl: string; host: string; port: number }): string {
  if (config.appUrl !== '') return config.appUrl;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const origin = config.publicUrl !== '' ? config.publicUrl : `http://${host}:${config.port}`;
  return `${origin}/console/`;
}

/** The app's origin, where APP_URL names one: a provider's sign-in may send the browser back there. */
export function appOriginsOf(config: { appUrl: string }): string[] {
  return config.appUrl === '' ? [] : [new URL(config.appUrl).origin];
}
