/**
 * The progress bar of `restock import` on a terminal: by bytes read when the input's size is
 * known, with the records so far, the time spent and, once it can tell, the time left.
 */
import type { Readable } from 'node:stream';
// Format by the default export: Node.js finds no named export of it in this CommonJS module.
import cliProgress, { type GenericFormatter, Presets, SingleBar } from 'cli-progress';
import type { CommandContext } from '../command.js';

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

/** A progress bar on a terminal (by bytes read when `total`, the input's size, is known); nothing elsewhere. */
export function progressBar(
  io: CommandContext['io'],
  input: Readable,
  total: number | undefined,
  what: string,
): Progress {
  if (io.stderr.isTTY !== true) return { update: () => {}, stop: () => {} };
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
