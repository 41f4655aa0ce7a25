/**
 * A real SMTP server (smtp-server) for the benchmarks that send mail: it takes every mail,
 * answering each `delayMs` after its data ends (a relay's pace), counts them, and says when
 * it has taken a given number more.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type CountingSmtp = Awaited<ReturnType<typeof countingSmtp>>;

export async function countingSmtp(delayMs = 0) {
  let taken = 0;
  let waiting: { count: number; done: () => void } | undefined;
  const take = (answer: () => void) => {
    taken++;
    answer();
    if (waiting && taken >= waiting.count) waiting.done();
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, answer) {
      stream.resume();
      stream.on('end', () => (delayMs > 0 ? setTimeout(take, delayMs, answer) : take(answer)));
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    /** How many mails it has taken. */
    received: () => taken,
    /** Resolves once `count` more mails than now have been taken. */
    expect(count: number): Promise<void> {
      const target = taken + count;
      return new Promise((resolve) => {
        waiting = { count: target, done: resolve };
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
