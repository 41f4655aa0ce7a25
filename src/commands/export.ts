/**
 * `restock export`: writes a collection as NDJSON or a JSON array, to standard output or a
 * file, page by page in id order (pages of at most 1000 records and 8 MiB), so that memory
 * stays flat whatever the size of the collection and of its records.
 * Each record is written as the API serves it; `restock import` reads it back with its id.
 * With `--password-hashes`, an account also carries its password hash (`"password": "$scrypt$…"`),
 * which `restock import` keeps as the hash: accounts moved so sign in with their own passwords.
 */
import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { ConfigError } from '../config/index.js';
import { readPage } from '../records/list-page.js';
import { renderRecord } from '../records/render.js';
import type { Position } from '../store/store.js';
import { type CommandContext, openCollection } from './command.js';
import { NO_PROGRESS, recordsBar } from './progress.js';

/** Records read from the store at a time, at most, and the most bytes of them. */
const PAGE_SIZE = 1000;
const PAGE_BYTES = 8 << 20;

export async function runExport({ config, options, io }: CommandContext): Promise<number> {
  const file = options.output as string | undefined;
  const format = (options.format as string | undefined) ?? (file?.endsWith('.json') ? 'json' : 'ndjson');
  if (format !== 'json' && format !== 'ndjson')
    throw new ConfigError(`--format must be json or ndjson, got "${format}"`);
  const { collection, records, close } = await openCollection(config, options, { enforceUnique: false });
  const name = collection.plural;
  const withHashes = options['password-hashes'] === true;
  if (withHashes && !collection.account) {
    await close();
    throw new ConfigError(`--password-hashes is for a collection of accounts (x-auth in its schema); ${name} is none`);
  }

  // A file is written beside its final name and renamed when complete: never half an export.
  const partial = file ? `${file}.partial` : undefined;
  // Password hashes are secrets (each can be guessed at offline): a file of them only its owner reads.
  // (The mode applies to a new file only: a partial one left by a killed run goes first.)
  if (partial) rmSync(partial, { force: true });
  const out: Writable = partial ? createWriteStream(partial, withHashes ? { mode: 0o600 } : {}) : io.stdout;
  let failure: NodeJS.ErrnoException | undefined;
  const failed = new Promise<never>((_, reject) =>
    out.on('error', (error: NodeJS.ErrnoException) => {
      failure = error;
      reject(error);
    }),
  );
  failed.catch(() => undefined);
  const write = async (text: string) => {
    if (failure) throw failure;
    if (!out.write(text)) await Promise.race([once(out, 'drain'), failed]);
  };

  let count = 0;
  // A bar where someone watches standard error, unless the records themselves scroll by there.
  const watched = io.stderr.isTTY === true && (partial !== undefined || io.stdout.isTTY !== true);
  const progress = watched
    ? recordsBar(io.stderr, await records.count({ where: [] }), `exporting ${name}`)
    : NO_PROGRESS;
  try {
    if (format === 'json') await write('[');
    for (let after: Position | undefined; ; ) {
      // Read and written within PAGE_BYTES, as the API's pages are: large records make short pages.
      const query = { where: [], sort: [], limit: PAGE_SIZE, ...(after ? { after } : {}) };
      const page = await readPage(records, query, renderRecord, PAGE_BYTES);
      // The page's hashes in one read, after its records: a password changed in between is exported as changed.
      const hashes = withHashes ? await records.secretsOf(page.rows.map((row) => row.id)) : undefined;
      let text = '';
      for (const [i, rendered] of page.records.entries()) {
        const hash = hashes?.get(page.rows[i]?.id ?? 0);
        const record = hash === undefined ? rendered : `${rendered.slice(0, -1)},"password":${JSON.stringify(hash)}}`;
        text += format === 'json' ? `${count === 0 ? '\n' : ',\n'}${record}` : `${record}\n`;
        count++;
      }
      if (text) await write(text);
      progress.update(count);
      if (!page.more || !page.last) break;
      after = page.last.position;
    }
    if (format === 'json') await write(count === 0 ? ']\n' : '\n]\n');
    if (partial && file) {
      out.end();
      await Promise.race([once(out, 'finish'), failed]);
      renameSync(partial, file);
    }
  } catch (error) {
    if (partial) rmSync(partial, { force: true });
    // The reader went away (`restock export | head`): stop quietly, as Unix tools do.
    if (failure?.code === 'EPIPE') return 0;
    io.stderr.write(`restock: export failed after ${count} ${name}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    progress.stop();
    await close();
  }
  io.stderr.write(`exported ${count} ${name}${file ? ` to ${file}` : ''}\n`);
  return 0;
}
