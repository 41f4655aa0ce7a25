/**
 * `restock import FILE`: loads records from a JSON array or NDJSON file (`-` for standard
 * input) into a collection, all of them or none.
 *
 * Ids: a record that carries an `id` keeps it, with its `createdAt` and `updatedAt`, so an
 * export imported elsewhere is the same data at the same addresses; a record without one
 * gets a new id, as a POST would. `--new-ids` gives every record a new id. Records are
 * written in batches, each one transaction (./import-writer.ts); a line or batch that fails undoes
 * the batches before it. `--dry-run` checks every line and writes nothing (./dry-run.ts); `--upsert FIELD`
 * replaces the records that match on FIELD, and can run again after a failure (./upsert.ts).
 * Into a collection of accounts, a line's `password` never lands among its fields: a hash is
 * kept as it is, plain text is checked as a create checks it and hashed (./passwords.ts).
 * Into a collection with file fields, a line naming a file the file storage lacks is refused
 * (./missing-files.ts).
 */
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { ConfigError } from '../../config/index.js';
import type { CommandContext } from '../command.js';
import { openCollection } from '../command.js';
import { progressBar } from '../progress.js';
import { InputError, type RecordText, readRecords } from '../record-reader.js';
import { DryRun } from './dry-run.js';
import { ImportWriter } from './import-writer.js';
import { missingFilesCheck } from './missing-files.js';
import { hashPasswords } from './passwords.js';
import { BadRecord, lineLimit, type Pending, prepare } from './record-line.js';
import { Upserter } from './upsert.js';

/**
 * The most JSON text (in UTF-16 units) one batch holds, whatever --batch-size says: a
 * thousand records of 1 MiB would make one statement of a gigabyte, past what PostgreSQL
 * takes in one value.
 */
const BATCH_BYTES = 64 << 20;

export async function runImport({ config, options, positionals, io }: CommandContext): Promise<number> {
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new ConfigError('import takes one FILE (or - for standard input)');
  const batchSize = Number(options['batch-size'] ?? 1000);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
    throw new ConfigError(`--batch-size must be an integer from 1 to 100000, got "${options['batch-size']}"`);
  }
  const newIds = options['new-ids'] === true;
  const input = file === '-' ? io.stdin : openFile(file);
  const total = file === '-' ? undefined : statSync(file).size;
  const { collection, records, indexedPaths, references, close } = await openCollection(config, options, {
    enforceUnique: true,
  });
  const { plural: name, schema } = collection;
  const files = await missingFilesCheck(config, collection).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  const read = async (record: RecordText) => {
    const pending = prepare(record, config, collection, newIds, indexedPaths);
    await files?.check(pending);
    return pending;
  };
  const progress = progressBar(io, input, total, `${options['dry-run'] ? 'checking' : 'importing'} ${name}`);
  const started = Date.now();
  try {
    if (options['dry-run'] === true) {
      const dryRun = new DryRun(records, collection.unique, references);
      let toHash = 0;
      try {
        for await (const record of readRecords(input, lineLimit(config.maxRecordBytes))) {
          try {
            const pending = await read(record);
            if (pending.password !== undefined) toHash++;
            await dryRun.add(pending);
          } catch (error) {
            if (!(error instanceof BadRecord)) throw error;
            dryRun.report({ line: error.line, message: error.message });
          }
          progress.update(dryRun.checked);
        }
        await dryRun.finish();
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        dryRun.report({ line: error.line, message: `${error.message} (the rest of the input was not read)` });
      }
      progress.stop();
      const problems = dryRun.problems.length + dryRun.unreported;
      for (const { line, message } of dryRun.problems) io.stderr.write(`restock: line ${line}: ${message}\n`);
      if (dryRun.unreported > 0) io.stderr.write(`restock: and ${dryRun.unreported} more\n`);
      for (const { line, message } of dryRun.unresolved) io.stderr.write(`restock: line ${line}: ${message}\n`);
      if (dryRun.unreportedUnresolved > 0) io.stderr.write(`restock: and ${dryRun.unreportedUnresolved} more\n`);
      const kept = dryRun.keepingIds;
      const unresolved = dryRun.unresolved.length + dryRun.unreportedUnresolved;
      io[problems > 0 ? 'stderr' : 'stdout'].write(
        `checked ${dryRun.checked} ${name} (${dryRun.checked - kept} with new ids, ${kept} with their own): ` +
          `${problems > 0 ? `${problems} cannot be imported` : 'every one can be imported'}` +
          `${unresolved > 0 ? `; ${unresolved} references name records that do not exist, kept as they are` : ''}` +
          `${toHash > 0 ? `; ${toHash} plain-text passwords would be hashed` : ''}` +
          '; nothing was written\n',
      );
      return problems > 0 ? 1 : 0;
    }

    const writer =
      typeof options.upsert === 'string' ? new Upserter(records, options.upsert, schema) : new ImportWriter(records);
    let batch: Pending[] = [];
    let batchBytes = 0;
    let hashed = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      hashed += await hashPasswords(batch, config.passwordHashCost);
      await writer.write(batch);
      batch = [];
      batchBytes = 0;
      progress.update(written(writer));
    };
    try {
      for await (const record of readRecords(input, lineLimit(config.maxRecordBytes))) {
        const pending = await read(record);
        const full = batch.length >= batchSize || batchBytes + pending.data.length > BATCH_BYTES;
        if (batch.length > 0 && (full || Boolean(batch[0]?.kept) !== Boolean(pending.kept))) await flush();
        batch.push(pending);
        batchBytes += pending.data.length;
      }
      await flush();
    } catch (error) {
      progress.stop();
      const from = batch[0]?.line ?? 0;
      const to = batch[batch.length - 1]?.line ?? from;
      const line =
        error instanceof BadRecord || error instanceof InputError ? error.line : from === to ? from : undefined;
      const where = line === undefined ? `lines ${from}–${to}` : `line ${line}`;
      io.stderr.write(`restock: ${where}: ${(error as Error).message}\n`);
      if (writer instanceof Upserter) {
        io.stderr.write(
          `restock: the ${written(writer)} ${name} written before it stay; run the fixed file again with ` +
            '--upsert to finish.\n',
        );
        return 1;
      }
      const undone = await writer.undo();
      io.stderr.write(
        `restock: nothing was imported${undone > 0 ? `: the ${undone} ${name} written before it were deleted again` : ''}.\n`,
      );
      return 1;
    }
    progress.stop();
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const passwords = hashed > 0 ? `, ${hashed} plain-text passwords hashed` : '';
    io.stdout.write(
      writer instanceof Upserter
        ? `imported ${written(writer)} ${name} (${writer.created} created, ${writer.replaced} replaced${passwords}) ` +
            `in ${seconds} s\n`
        : `imported ${written(writer)} ${name} (${writer.created} with new ids, ${writer.restored} with their own` +
            `${passwords}) in ${seconds} s\n`,
    );
    return 0;
  } finally {
    await files?.close();
    await close();
  }
}

/** Records written so far. */
function written(writer: ImportWriter | Upserter): number {
  return writer instanceof Upserter ? writer.created + writer.replaced : writer.created + writer.restored;
}

function openFile(file: string): Readable {
  try {
    statSync(file);
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return createReadStream(file);
}
