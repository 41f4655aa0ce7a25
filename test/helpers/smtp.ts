/**
 * A real SMTP server for tests (smtp-server, on 127.0.0.1 and a port of its own): restock
 * sends to it through SMTP_URL as it would to any, and the test reads each mail as
 * mailparser parses it. No mocked transport.
 *
 *   const smtp = await startSmtp();            // smtp.url → SMTP_URL
 *   const mail = await smtp.nextMail();        // the next mail accepted (an event, not a sleep)
 *   const token = tokenOf(mail);               // the `token=` of the link in its text
 *   smtp.refuseNext(2);                        // the next two DATA answered 451 (try again later)
 *   smtp.hold(); await smtp.held();            // DATA answers wait, until release(): nothing accepted meanwhile
 *   await smtp.abandon();                      // (the sender was killed) its connection closed, nothing accepted
 *   await smtp.close();
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  readonly url: string;
  /** Every mail accepted so far, in order. */
  readonly mails: readonly ParsedMail[];
  /** DATA answered with a refusal so far. */
  readonly refused: number;
  /** The next mail not yet taken by an earlier call, once it is accepted. */
  nextMail(): Promise<ParsedMail>;
  /** Answers the next `count` DATA with `451` (a temporary failure: the sender tries again later). */
  refuseNext(count: number): void;
  /** Holds every DATA answer from now on, until {@link release}: the sender waits, nothing is accepted. */
  hold(): void;
  /** Resolves once a DATA answer is being held. */
  held(): Promise<void>;
  /** Answers what was held (accepting the mails of connections still open) and holds no more. */
  release(): void;
  /**
   * For a sender killed while held: resolves once the connection of every held DATA has
   * closed, having accepted none of them, and holds no more.
   */
  abandon(): Promise<void>;
  close(): Promise<void>;
}

type Answer = (error?: Error | null) => void;

/** Servers still open: those a failed test left are closed once the file's tests are done. */
const open = new Set<() => Promise<void>>();
after(async () => {
  for (const close of open) await close();
});

/** Starts the server; it closes after the test file if the test does not close it. */
export async function startSmtp(): Promise<TestSmtp> {
  const mails: ParsedMail[] = [];
  /** Calls of nextMail() waiting, by the index of the mail each waits for. */
  const waiting = new Map<number, (mail: ParsedMail) => void>();
  let taken = 0;
  let refuse = 0;
  let refused = 0;
  let holding = false;
  const heldAnswers: { session: SMTPServerSession; accept: () => void }[] = [];
  const heldWaiters: (() => void)[] = [];
  const closed = new Set<string>();
  const closeWaiters: (() => void)[] = [];

  const accept = async (raw: Buffer, answer: Answer) => {
    const mail = await simpleParser(raw);
    const index = mails.push(mail) - 1;
    answer();
    waiting.get(index)?.(mail);
    waiting.delete(index);
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onClose(session) {
      closed.add(session.id);
      for (const wake of closeWaiters.splice(0)) wake();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, answer: Answer) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (refuse > 0) {
          refuse--;
          refused++;
          const error = Object.assign(new Error('try again later'), { responseCode: 451 });
          answer(error);
          return;
        }
        if (!holding) {
          void accept(raw, answer);
          return;
        }
        heldAnswers.push({ session, accept: () => void accept(raw, answer) });
        for (const wake of heldWaiters.splice(0)) wake();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  let stopped = false;
  const close = async () => {
    if (stopped) return;
    stopped = true;
    open.delete(close);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  open.add(close);

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    get refused() {
      return refused;
    },
    nextMail() {
      const index = taken++;
      const mail = mails[index];
      if (mail) return Promise.resolve(mail);
      return new Promise((resolve) => waiting.set(index, resolve));
    },
    refuseNext(count) {
      refuse += count;
    },
    hold() {
      holding = true;
    },
    held() {
      if (heldAnswers.length > 0) return Promise.resolve();
      return new Promise((resolve) => heldWaiters.push(resolve));
    },
    release() {
      holding = false;
      for (const { session, accept: take } of heldAnswers.splice(0)) {
        if (!closed.has(session.id)) take();
      }
    },
    async abandon() {
      while (heldAnswers.some(({ session }) => !closed.has(session.id))) {
        await new Promise<void>((resolve) => closeWaiters.push(resolve));
      }
      heldAnswers.length = 0;
      holding = false;
    },
    close,
  };
}

/** The token of the link in a mail's text (`token=<token>`). */
export function tokenOf(mail: ParsedMail): string {
  const match = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  if (!match?.[1]) throw new Error(`no token in the mail's text: ${mail.text}`);
  return match[1];
}

/** The address a mail was sent to. */
export function recipientOf(mail: ParsedMail): string {
  const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
  return to?.value[0]?.address ?? '';
}
