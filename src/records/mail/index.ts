/**
 * Mail, without HTTP: the outbox's drain (./mail-drain.ts), the templates and links, the
 * senders, and the contract with the flows that compose mail (./letters.ts). The one entry
 * other folders import it through.
 */
import type { Config } from '../../config/index.js';
import { logSender, type MailLog, type MailSender, smtpSender } from './senders.js';

export type { ComposeMail, Letter, MailComposers } from './letters.js';
export { mailLink } from './links.js';
export { MailDrain, type MailDrainOptions } from './mail-drain.js';
export type { MailLog, MailSender, OutgoingMail } from './senders.js';
export { type MailValues, type RenderedMail, renderMail, templateNameOf } from './templates.js';

type MailConfig = Pick<Config, 'smtpUrl' | 'mailLogLinks' | 'mailFrom'>;

/** Whether mail can go out: SMTP_URL is set, or MAIL_LOG_LINKS logs the links in its place. */
export function mailAvailable(config: Pick<MailConfig, 'smtpUrl' | 'mailLogLinks'>): boolean {
  return config.smtpUrl !== '' || config.mailLogLinks;
}

/** The sender the settings ask for, or undefined when mail is unavailable. */
export function mailSender(
  config: MailConfig,
  log: MailLog,
  pool: { connections: number; timeoutMs: number },
): MailSender | undefined {
  if (config.smtpUrl !== '') return smtpSender({ url: config.smtpUrl, from: config.mailFrom, ...pool });
  return config.mailLogLinks ? logSender(log) : undefined;
}
