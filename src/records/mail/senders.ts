/**
 * Where rendered mail goes: an SMTP server through nodemailer's pooled transport (a few
 * connections kept open, so that a full outbox drains at the server's pace without a
 * connection per mail), or, in development without SMTP_URL, the log (MAIL_LOG_LINKS).
 * nodemailer's own logger stays off: it would print each message, link and token included.
 */
import type { MailKind } from '../../store/mail-model.js';
import type { RenderedMail } from './templates.js';

/** A mail as the drain hands it to a sender. */
export interface OutgoingMail extends RenderedMail {
  readonly kind: MailKind;
  readonly collection: string;
  /** The link it carries, '' for none. */
  readonly link: string;
}

export interface MailSender {
  /** Resolves once the server took the mail; rejects if it did not. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** The log a sender and the drain write to: pino's (Fastify's) shape, so the server's logger serves. */
export interface MailLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface SmtpOptions {
  readonly url: string;
  readonly from: string;
  /** Connections to the server at once, and so mails being sent at once. */
  readonly connections: number;
  /** How long a connection, greeting or silent socket is waited for. */
  readonly timeoutMs: number;
}

/**
 * A sender over SMTP. nodemailer is imported here, when SMTP_URL is set, not by every start:
 * it was a fifth of a second of a start that sends no mail.
 */
export function smtpSender(options: SmtpOptions): MailSender {
  const transport = import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport({
      url: options.url,
      pool: true,
      maxConnections: options.connections,
      maxMessages: Number.POSITIVE_INFINITY,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
      logger: false,
      debug: false,
    }),
  );
  // A failed import fails each send (the drain logs it and retries), never the process.
  transport.catch(() => {});
  return {
    async send(mail) {
      await (await transport).sendMail({
        from: options.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      });
    },
    close: () => {
      transport.then(
        (t) => t.close(),
        () => {},
      );
    },
  };
}

/** A sender that only logs each mail's link, for development (MAIL_LOG_LINKS without SMTP_URL). */
export function logSender(log: MailLog): MailSender {
  return {
    async send(mail) {
      const { kind, collection, to, link } = mail;
      log.info({ mail: { kind, collection, to }, link }, 'mail not sent (MAIL_LOG_LINKS, no SMTP_URL): its link');
    },
    close() {},
  };
}
