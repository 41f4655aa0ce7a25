/**
 * Where the JSON logs go in production: stdout, in few writes per turn of the event loop.
 *
 * pino's default destination makes one blocking write per line, two per request: 6% of the
 * samples of a read in the profile (see bench/README.md). Its asynchronous mode (sonic-boom
 * with `sync: false`) measured slower still, as it re-measures its growing buffer on every
 * line. So this small destination, written by hand, keeps the lines of one turn of the event
 * loop and writes them in the check phase of the same turn: no line waits for more traffic.
 * Each write holds whole lines and at most PIPE_BUF bytes (unless one line is longer), so
 * that on a pipe shared by the processes of `--workers` no write is cut into another's. What
 * is pending is written when the process exits; only a kill -9 in the middle of a turn can
 * lose that turn's lines.
 */
import { writeSync } from 'node:fs';

/** The most a write to a pipe may hold and still never be interleaved with another's (POSIX). */
const PIPE_BUF = 4096;

/** A pino destination writing to `fd` once per turn of the event loop. */
export function batchedDestination(fd = 1): { write(line: string): void } {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const lines = pending;
    pending = [];
    let chunk = '';
    let size = 0;
    for (const line of lines) {
      const bytes = Buffer.byteLength(line);
      if (size > 0 && size + bytes > PIPE_BUF) {
        writeAll(fd, chunk);
        chunk = '';
        size = 0;
      }
      chunk += line;
      size += bytes;
    }
    if (size > 0) writeAll(fd, chunk);
  };
  process.on('exit', flush);
  return {
    write(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** writeSync may write less than asked (a pipe that is full): write the rest. */
function writeAll(fd: number, text: string): void {
  let rest = Buffer.from(text);
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      // A full non-blocking pipe: wait for its reader a little, as pino's own
      // destination does. A closed one (EPIPE): the logs cannot go anywhere.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}
