/** Running a `restock` command in the test's own process, with in-memory streams. */
import { Readable, Writable } from 'node:stream';
import { runCommand } from '../../src/commands/commands.js';

/**
 * Runs `restock …` in this process against `url`, with `stdin` as standard input (a string,
 * or any readable, so that a test can feed more than it would hold in memory).
 */
export async function cli(
  url: string,
  argv: string[],
  stdin: string | Readable = '',
  env: Record<string, string> = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]) =>
    new Writable({
      write(chunk, _encoding, done) {
        into.push(chunk.toString());
        done();
      },
    });
  const input = typeof stdin === 'string' ? Readable.from([Buffer.from(stdin)]) : stdin;
  const io = { stdin: input, stdout: sink(out), stderr: sink(err) };
  const code = await runCommand(argv, io, { DATABASE_URL: url, ...env });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
