/**
 * The mails a test SMTP server (./smtp.ts) accepted, taken by what they are rather than by
 * their order: flows send several at once (an email change: one to the new address, one to
 * the old), and the sender sends them side by side.
 *
 *   const box = mailbox(smtp);
 *   const mail = await box.take((m) => recipientOf(m) === 'new@example.com');
 */
import type { ParsedMail } from 'mailparser';
import type { TestSmtp } from './smtp.js';

export interface Mailbox {
  /** The first mail not taken yet that `wanted` says is one, once it is accepted. */
  take(wanted: (mail: ParsedMail) => boolean): Promise<ParsedMail>;
  /** The mails accepted and not taken yet. */
  left(): readonly ParsedMail[];
}

/** One mailbox per server: each takes every mail the server accepts, leaving none to another. */
const boxes = new WeakMap<TestSmtp, Mailbox>();

export function mailbox(smtp: TestSmtp): Mailbox {
  const made = boxes.get(smtp);
  if (made) return made;
  const box = newMailbox(smtp);
  boxes.set(smtp, box);
  return box;
}

function newMailbox(smtp: TestSmtp): Mailbox {
  const arrived: ParsedMail[] = [];
  const waiting = new Set<() => void>();
  void (async () => {
    for (;;) {
      arrived.push(await smtp.nextMail());
      for (const wake of [...waiting]) wake();
    }
  })();
  return {
    async take(wanted) {
      for (;;) {
        const at = arrived.findIndex(wanted);
        if (at >= 0) return arrived.splice(at, 1)[0] as ParsedMail;
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiting.delete(wake);
            resolve();
          };
          waiting.add(wake);
        });
      }
    },
    left: () => [...arrived],
  };
}
