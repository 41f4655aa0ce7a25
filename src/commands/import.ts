/**
 * `restock import FILE`: loads records from a JSON array or NDJSON file (`-` for standard
 * input) into a collection, in transactional batches.
 *
 * Ids: a record that carries an `id` keeps it, with its `createdAt` and `updatedAt`, so an
 * export imported elsewhere is the same data at the same addresses; a record without one
 * gets a new id, as a POST would. `--new-ids` gives every record a new id. A batch is a run
 * of consecutive records of one kind, written in one transaction: all of it or none.
 */
import { randomInt } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { Presets, SingleBar } from 'cli-progress';
import { ConfigError } from '../config/index.js';
import type { CollectionSchema } from '../core/collection-schema.js';
import { checkLimits, withoutSystemFields } from '../core/record-rules.js';
import { type Collection, MAX_ID, type StoredRecord, UniqueViolationError } from '../store/store.js';
import type { CommandContext } from './command.js';
import { collectionOption, openCollection } from './command.js';
import { InputError, type RecordText, readRecords } from './record-reader.js';

/**
 * The most JSON text (in UTF-16 units) one batch holds, whatever --batch-size says: a
 * thousand records of 1 MiB would make one statement of a gigabyte, past what PostgreSQL
 * takes in one value.
 */
const BATCH_BYTES = 64 << 20;

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const importOptions = {
  ...collectionOption,
  'batch-size': { type: 'string', help: 'records per transaction (default 1000)', placeholder: 'N' },
  'new-ids': { type: 'boolean', help: 'give every record a new id, ignoring the ids in the file' },
} as const;

/** One record ready to write, and the line it came from. */
interface Pending {
  line: number;
  data: string;
  /** Set when the record keeps its id: what `restore` writes. */
  kept?: StoredRecord;
}

/** A line the importer refuses; nothing of its batch is written. */
class BadRecord extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

export async function runImport({ config, options, positionals, io }: CommandContext): Promise<number> {
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new ConfigError('import takes one FILE (or - for standard input)');
  const batchSize = Number(options['batch-size'] ?? 1000);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
    throw new ConfigError(`--batch-size must be an integer from 1 to 100000, got "${options['batch-size']}"`);
  }
  const input = file === '-' ? io.stdin : openFile(file);
  const total = file === '-' ? undefined : statSync(file).size;
  const { name, collection, schema, close } = await openCollection(config, options, { enforceUnique: true });

  const bar =
    io.stderr.isTTY === true
      ? new SingleBar(
          {
            stream: io.stderr,
            hideCursor: true,
            format:
              total === undefined
                ? `importing ${name} | {records} records`
                : `importing ${name} [{bar}] {percentage}% | {records} records | ETA {eta_formatted}`,
          },
          Presets.shades_classic,
        )
      : undefined;
  let bytes = 0;
  input.on('data', (chunk: Buffer | string) => {
    bytes += Buffer.byteLength(chunk);
  });
  bar?.start(total ?? 1, 0, { records: 0 });

  const started = Date.now();
  const done = { created: 0, restored: 0, lastLine: 0 };
  let batch: Pending[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await writeBatch(collection, batch);
    if (batch[0]?.kept) done.restored += batch.length;
    else done.created += batch.length;
    done.lastLine = batch[batch.length - 1]?.line ?? done.lastLine;
    batch = [];
    batchBytes = 0;
    bar?.update(Math.min(bytes, total ?? 1), { records: done.created + done.restored });
  };

  try {
    for await (const record of readRecords(input, lineLimit(config.maxRecordBytes))) {
      const pending = prepare(record, config, schema, options['new-ids'] === true);
      const full = batch.length >= batchSize || batchBytes + pending.data.length > BATCH_BYTES;
      if (batch.length > 0 && (full || Boolean(batch[0]?.kept) !== Boolean(pending.kept))) await flush();
      batch.push(pending);
      batchBytes += pending.data.length;
    }
    await flush();
  } catch (error) {
    bar?.stop();
    const count = done.created + done.restored;
    const line = error instanceof BadRecord || error instanceof InputError ? error.line : undefined;
    const from = (batch[0]?.line ?? line ?? done.lastLine + 1) as number;
    const where = line === undefined ? `lines ${from}–${batch[batch.length - 1]?.line ?? from}` : `line ${line}`;
    io.stderr.write(
      `restock: ${where}: ${(error as Error).message}\n` +
        `restock: nothing from line ${from} on was written; ${count} ${name} before it were imported.\n`,
    );
    return 1;
  } finally {
    await close();
  }
  bar?.update(total ?? 1);
  bar?.stop();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.stdout.write(
    `imported ${done.created + done.restored} ${name} (${done.created} with new ids, ${done.restored} ` +
      `with their own) in ${seconds} s\n`,
  );
  return 0;
}

function openFile(file: string): Readable {
  try {
    statSync(file);
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return createReadStream(file);
}

/**
 * The longest text of one record the importer reads: twice MAX_RECORD_BYTES and 4 KiB. A
 * record the API holds is at most MAX_RECORD_BYTES as compact JSON; written with a blank
 * after every ',' and ':' (as PostgreSQL's export and many JSON writers do) it grows by at
 * most half, and its id and timestamps take less than 100 bytes.
 */
export function lineLimit(maxRecordBytes: number): number {
  return 2 * maxRecordBytes + 4096;
}

/** Checks one record as the API would (limits, then the schema), and decides whether it keeps its id. */
function prepare(
  { line, text }: RecordText,
  limits: CommandContext['config'],
  schema: CollectionSchema | undefined,
  newIds: boolean,
): Pending {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BadRecord(line, `not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRecord(line, 'a record must be a JSON object');
  }
  const broken = checkLimits(value, limits, { text });
  if (broken) throw new BadRecord(line, `${broken.pointer || '/'}: ${broken.message}`);
  const fields = withoutSystemFields(value as Record<string, unknown>);
  const [violation, ...more] = schema?.check(fields) ?? [];
  if (violation) {
    const others = more.length > 0 ? ` (and ${more.length} more)` : '';
    throw new BadRecord(line, `breaks the schema: ${violation.pointer || '/'} ${violation.message}${others}`);
  }
  const data = JSON.stringify(fields);
  const bytes = Buffer.byteLength(data);
  if (bytes > limits.maxRecordBytes) {
    throw new BadRecord(
      line,
      `the record is ${bytes} bytes as compact JSON, more than MAX_RECORD_BYTES (${limits.maxRecordBytes})`,
    );
  }
  const { id, createdAt, updatedAt } = value as Record<string, unknown>;
  if (newIds || id === undefined) return { line, data };

  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > MAX_ID) {
    throw new BadRecord(line, `id must be an integer from 1 to ${MAX_ID} (2^53 - 1), got ${JSON.stringify(id)}`);
  }
  for (const [field, time] of [
    ['createdAt', createdAt],
    ['updatedAt', updatedAt],
  ] as const) {
    if (time !== undefined && (typeof time !== 'string' || !RFC3339_MS.test(time))) {
      throw new BadRecord(line, `${field} must be an RFC 3339 UTC time with milliseconds, got ${JSON.stringify(time)}`);
    }
  }
  const now = new Date().toISOString();
  const created = (createdAt as string | undefined) ?? (updatedAt as string | undefined) ?? now;
  const updated = (updatedAt as string | undefined) ?? created;
  return { line, data, kept: { id, data, version: restoredVersion(), createdAt: created, updatedAt: updated } };
}

/**
 * The version a restored record starts at. ETags are made of it: starting again at 1 would
 * let an ETag a client got from the source database (for an older state) match here, and
 * pass its If-Match. A random start between 10^9 and 2·10^9 is above any count of changes
 * a record sees, and leaves room for as many more below PostgreSQL's integer limit.
 */
function restoredVersion(): number {
  return 1_000_000_000 + randomInt(1_000_000_000);
}

/** Writes one batch in one transaction; a failure names the first line it can blame. */
async function writeBatch(collection: Collection, batch: readonly Pending[]): Promise<void> {
  try {
    if (batch[0]?.kept) await collection.restore(batch.map((p) => p.kept as StoredRecord));
    else await collection.createMany(batch.map((p) => p.data));
  } catch (error) {
    const seen = new Set<number>();
    for (const pending of batch) {
      if (!pending.kept) continue;
      const { id } = pending.kept;
      if (seen.has(id)) throw new BadRecord(pending.line, `id ${id} appears twice`);
      seen.add(id);
      if (await collection.get(id)) {
        throw new BadRecord(pending.line, `id ${id} is already taken (use --new-ids to renumber)`);
      }
    }
    if (error instanceof UniqueViolationError) {
      const field = error.path.join('.');
      throw new Error(`a record here has a value of ${field} that another record has (${field} must be unique)`);
    }
    throw new Error(`the batch could not be written: ${(error as Error).message}`);
  }
}
