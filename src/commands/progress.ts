/**
 * The progress bars of `restock import` and `restock export` on a terminal: import's by bytes
 * read when the input's size is known, export's by records written of those counted at its
 * start; each with the records so far, the time spent and, once it can tell, the time left.
 */
import type { Readable } from 'node:stream';
// Format by the default export: Node.js finds no named export of it in this CommonJS module.
import cliProgress, { type GenericFormatter, Presets, SingleBar } from 'cli-progress';
import type { CommandContext } from './command.js';

export interface Progress {
  update(records: number): void;
  stop(): void;
}

/**
 * The bar's line. cli-progress's estimate is a number of seconds, or 'NULL' or 'INF' when the
 * bytes read have not moved across the last updates (a dry run checks many records of one
 * chunk): its own format then prints pieces of those words ("ETA NFs"). The time left shows
 * only while it is a number; the time spent always does.
 */
export function progressFormat(what: string, sized: boolean): GenericFormatter {
  const known = `${what} [{bar}] {percentage}% | {records} records | {duration_formatted} | ETA {eta_formatted}`;
  const unknown = `${what} [{bar}] {percentage}% | {records} records | {duration_formatted}`;
  const unsized = `${what} | {records} records | {duration_formatted}`;
  return (options, params, payload) => {
    const estimated = typeof params.eta === 'number' && Number.isFinite(params.eta);
    const format = !sized ? unsized : estimated ? known : unknown;
    return cliProgress.Format.Formatter({ ...options, format }, params, payload);
  };
}

/** What a command draws where no one watches: nothing. */
export const NO_PROGRESS: Progress = { update: () => {}, stop: () => {} };

/**
 * A bar of `total` records (of `what`, as counted when it starts: records created meanwhile
 * stretch it) on the terminal `stream`.
 */
export function recordsBar(stream: NodeJS.WritableStream, total: number, what: string): Progress {
  const bar = new SingleBar({ stream, hideCursor: true, format: progressFormat(what, true) }, Presets.shades_classic);
  bar.start(Math.max(total, 1), 0, { records: 0 });
  let size = total;
  return {
    update: (records: number) => {
      if (records > size) {
        size = records;
        bar.setTotal(size);
      }
      bar.update(records, { records });
    },
    stop: () => {
      bar.update(Math.max(size, 1));
      bar.stop();
    },
  };
}

/** A progress bar on a terminal (by bytes read when `total`, the input's size, is known); nothing elsewhere. */
export function progressBar(
  io: CommandContext['io'],
  input: Readable,
  total: number | undefined,
  what: string,
): Progress {
  if (io.stderr.isTTY !== true) return NO_PROGRESS;
  const format = progressFormat(what, total !== undefined);
  const bar = new SingleBar({ stream: io.stderr, hideCursor: true, format }, Presets.shades_classic);
  let bytes = 0;
  input.on('data', (chunk: Buffer | string) => {
    bytes += Buffer.byteLength(chunk);
  });
  bar.start(total ?? 1, 0, { records: 0 });
  let shown = 0;
  return {
    update: (records: number) => {
      const value = Math.min(bytes, total ?? 1);
      // Only a move feeds the estimate: an update per record of the same chunk would tell it nothing moves.
      if (value === shown) {
        bar.update({ records });
      } else {
        shown = value;
        bar.update(value, { records });
      }
    },
    stop: () => {
      bar.update(total ?? 1);
      bar.stop();
    },
  };
}
