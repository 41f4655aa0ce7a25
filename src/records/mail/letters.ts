/**
 * The contract between the outbox and the flows (src/records/accounts/flows/composers.ts):
 * a composer turns an outbox entry, which holds no secret, into a letter, minting the
 * flow's token as it does (stored only as its hash); the drain makes the link, renders and
 * sends it. A composer answers undefined when there is nothing to send (a reset request for
 * an unknown address, an account deleted since).
 */
import type { MailKind, OutboxMail } from '../../store/mail-model.js';

/** A mail to send, as its composer made it. */
export interface Letter {
  readonly to: string;
  readonly kind: MailKind;
  /** The account collection's plural. */
  readonly collection: string;
  /** The flow's token the link carries; absent for a mail without a link. */
  readonly token?: string;
}

export type ComposeMail = (mail: OutboxMail) => Promise<Letter | undefined>;

/** One composer per kind of mail. */
export type MailComposers = Readonly<Record<MailKind, ComposeMail>>;
