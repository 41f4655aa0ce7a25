/**
 * The mail outbox: mail to send, written in the transaction of the write that causes it (a
 * sign-up's verification, an email change's confirmation) or on its own (a reset request),
 * and sent by src/records/mail/ after the commit, at least once. An entry holds no token:
 * the sender makes the token when it sends, so the table never holds one.
 */

/** What a mail is: its template and what the sender makes for it. */
export type MailKind = 'verify' | 'reset-request' | 'email-change' | 'email-changed';

/** A mail to send, as a write asks for it. */
export interface NewMail {
  readonly kind: MailKind;
  /** The account collection's plural. */
  readonly collection: string;
  /** The account it concerns; absent for the record being written, or a reset request's address unknown. */
  readonly accountId?: number;
  /** Where it goes when not the account's own address: a reset request's, an email change's new one. */
  readonly address?: string;
}

/** A mail in the outbox. */
export interface OutboxMail {
  readonly id: string;
  readonly kind: MailKind;
  readonly collection: string;
  readonly accountId: number | null;
  readonly address: string | null;
  /** How many times a sender has claimed it, this claim included. */
  readonly attempts: number;
  readonly createdAt: number;
}

/** The outbox's operations; each is one statement or one transaction. */
export interface MailOutbox {
  /** Adds a mail on its own (not within a write), due now. */
  enqueue(mail: NewMail, now: number): Promise<void>;
  /**
   * Claims up to `limit` mails due at `now`, oldest first, for `leaseMs`: until then no other
   * sender, of this process or another instance, claims them. A sender that dies holding
   * them leaves them to be claimed again when the lease ends.
   */
  claim(now: number, leaseMs: number, limit: number): Promise<OutboxMail[]>;
  /** Forgets a mail that was sent, or that has nothing to send. */
  finish(id: string): Promise<void>;
  /** Puts a mail that failed back, due at `dueAt`. */
  retry(id: string, dueAt: number): Promise<void>;
  /** How many mails wait, for /metrics. */
  pending(): Promise<number>;
}
