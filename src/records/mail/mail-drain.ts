/**
 * The outbox's sender: claims due mail with a lease (so that two instances, or a restart
 * after a crash, never send one mail at once), has its composer make the letter and its
 * token, renders and sends it, and forgets it once the server took it; a mail that failed
 * is tried again later, each wait about twice the last (with jitter, so that mails failed
 * together do not come back together), until it is given up. Nothing it logs holds a token
 * or a link. It wakes when this process queues mail and looks on its own now and then for
 * what other instances queued and what is due again.
 */
import type { AccountSettings } from '../../core/accounts.js';
import type { MailOutbox, OutboxMail } from '../../store/mail-model.js';
import type { Letter, MailComposers } from './letters.js';
import { mailLink } from './links.js';
import type { MailLog, MailSender } from './senders.js';
import { renderMail, templateNameOf } from './templates.js';

export interface MailDrainOptions {
  readonly outbox: MailOutbox;
  readonly composers: MailComposers;
  readonly sender: MailSender;
  /** The account settings of a collection, by plural (its own templates). */
  readonly accountOf: (plural: string) => AccountSettings | undefined;
  readonly appName: string;
  /** The base of links, known once the server listens (its port may be chosen then). */
  readonly linkBase: () => string;
  readonly log: MailLog;
  /** Mails being composed and sent at once. */
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  /** The wait before the first retry; each next is twice the last, up to {@link MAX_RETRY_MS}. */
  readonly retryMs: number;
  /** Tries before a mail is given up. */
  readonly maxAttempts: number;
  readonly now?: () => number;
}

/** The longest wait between two tries of a mail. */
const MAX_RETRY_MS = 3_600_000;

export class MailDrain {
  private stopped = false;
  /** The workers waiting for mail: a wake, the stop, or their own timer ends their wait. */
  private readonly waiters = new Set<() => void>();
  /** Mails claimed and not yet taken by a worker. */
  private readonly claimed: OutboxMail[] = [];
  private claiming: Promise<void> | undefined;
  private rung = false;
  /** When the soonest mail this drain put back is due again: it looks then, before the next poll. */
  private soonest = Number.POSITIVE_INFINITY;
  private running: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: MailDrainOptions) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Mail was queued, due at `dueAt` (now when absent): look then rather than at the next poll. */
  wake(dueAt?: number): void {
    if (dueAt !== undefined && dueAt > this.now()) {
      this.soonest = Math.min(this.soonest, dueAt);
    } else {
      this.rung = true;
    }
    for (const wake of [...this.waiters]) wake();
  }

  /** Stops claiming; resolves once the mails being sent are sent (or failed), then closes the sender. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true;
      for (const wake of [...this.waiters]) wake();
      await this.running;
      // Mails claimed and never begun go back now, rather than when their lease ends.
      const now = this.now();
      await Promise.all(this.claimed.splice(0).map((mail) => this.options.outbox.retry(mail.id, now).catch(() => {})));
      this.options.sender.close();
    })();
    return this.stopping;
  }

  /** Each of `concurrency` workers sends one mail after another, taking them from what was claimed last. */
  private async loop(): Promise<void> {
    await Promise.all(Array.from({ length: this.options.concurrency }, () => this.work()));
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      const mail = await this.take();
      if (mail) await this.deliver(mail);
      else await this.idle();
    }
  }

  /** The next claimed mail, claiming more (once for every worker waiting) when none is left; undefined when none is due. */
  private async take(): Promise<OutboxMail | undefined> {
    if (this.claimed.length === 0) {
      this.claiming ??= this.claim().finally(() => {
        this.claiming = undefined;
      });
      await this.claiming;
    }
    return this.claimed.shift();
  }

  private async claim(): Promise<void> {
    const { outbox, concurrency, leaseMs, log } = this.options;
    this.rung = false;
    const at = this.now();
    try {
      this.claimed.push(...(await outbox.claim(at, leaseMs, concurrency * 2)));
      // What was due by then is claimed now, or by another sender.
      if (at >= this.soonest) this.soonest = Number.POSITIVE_INFINITY;
    } catch (error) {
      log.warn({ err: error }, 'mail outbox: cannot claim mail; trying again at the next poll');
    }
  }

  /** Waits for a wake, the poll, the soonest retry or the stop. */
  private async idle(): Promise<void> {
    if (this.rung || this.stopped) return;
    const waitMs = Math.max(0, Math.min(this.options.pollMs, this.soonest - this.now()));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, waitMs);
      const waiters = this.waiters;
      function done() {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      }
      waiters.add(done);
    });
  }

  private async deliver(mail: OutboxMail): Promise<void> {
    const { outbox, log } = this.options;
    let letter: Letter | undefined;
    try {
      letter = await this.options.composers[mail.kind](mail);
      if (letter) await this.send(letter);
    } catch (error) {
      await this.failed(mail, error, letter?.token);
      return;
    }
    await outbox.finish(mail.id).catch((error: unknown) => {
      // Sent, but still in the outbox: it goes again (with a new token) once its lease ends.
      log.warn({ err: error, mail: { id: mail.id } }, 'mail sent, but not taken out of the outbox');
    });
  }

  /** A mail that could not be sent: put back for later, or given up after its last try. */
  private async failed(mail: OutboxMail, error: unknown, token: string | undefined): Promise<void> {
    const { outbox, log } = this.options;
    const about = { mail: { id: mail.id, kind: mail.kind, collection: mail.collection, attempts: mail.attempts } };
    // The error's text may quote the message (a server's refusal): the token is taken out of it.
    const reason = withoutSecret(error, token);
    if (mail.attempts >= this.options.maxAttempts) {
      log.error({ ...about, reason }, 'mail given up after its last try');
      await outbox.finish(mail.id).catch(() => {});
      return;
    }
    const dueAt = this.now() + this.retryDelay(mail.attempts);
    this.soonest = Math.min(this.soonest, dueAt);
    log.warn({ ...about, reason, dueAt }, 'mail not sent; it will be tried again');
    await outbox.retry(mail.id, dueAt).catch(() => {});
  }

  private async send(letter: Letter): Promise<void> {
    const { accountOf, appName, linkBase, sender } = this.options;
    const link = mailLink(linkBase(), letter.kind, letter.collection, letter.token);
    const name = templateNameOf(letter.kind);
    const own = accountOf(letter.collection)?.mail?.[name];
    const values = { appName, email: letter.to, link, token: letter.token ?? '' };
    const rendered = renderMail(name, own, values);
    await sender.send({ ...rendered, to: letter.to, kind: letter.kind, collection: letter.collection, link });
  }

  /** The wait after the `attempts`-th failure: doubling from `retryMs`, capped, between half and all of it. */
  private retryDelay(attempts: number): number {
    const full = Math.min(MAX_RETRY_MS, this.options.retryMs * 2 ** Math.min(attempts - 1, 30));
    return Math.round(full / 2 + (Math.random() * full) / 2);
  }
}

/** An error's code and message, any token in it replaced. */
function withoutSecret(error: unknown, token: string | undefined): { code?: string; message: string } {
  const { code, message } = error as { code?: unknown; message?: unknown };
  let text = typeof message === 'string' ? message : String(error);
  if (token !== undefined) text = text.replaceAll(token, '[token]');
  return { ...(typeof code === 'string' && { code }), message: text.slice(0, 500) };
}
