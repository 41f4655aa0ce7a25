/**
 * One line of an import: checked as the API would check a record (limits, an account's
 * password, then the schema), and made ready to write, keeping its id or not.
 */
import { randomInt } from 'node:crypto';
import type { Config } from '../../config/index.js';
import type { Collection } from '../../core/collection.js';
import { oversizedIndexedValue } from '../../core/indexed-values.js';
import { checkLimits } from '../../core/record-limits.js';
import { withoutSystemFields } from '../../core/system-fields.js';
import { isPasswordHash, PASSWORD_FIELD, takePassword } from '../../records/accounts/index.js';
import { Refusal } from '../../records/refusal.js';
import { MAX_ID, type StoredRecord } from '../../store/store.js';
import type { RecordText } from '../record-reader.js';

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** One record ready to write, and the line it came from. */
export interface Pending {
  line: number;
  data: string;
  /** The client's fields, parsed: what the dry run compares unique values in. */
  fields: Record<string, unknown>;
  /** Set when the record keeps its id: what `restore` writes. */
  kept?: StoredRecord;
  /** An account's password hash, written with it: the file's own (an export's), or made from `password`. */
  hash?: string;
  /** An account's password in plain text, checked as a create checks it; hashed before the write (./passwords.ts). */
  password?: string;
}

/** A line the importer refuses. */
export class BadRecord extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
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

/**
 * Checks one record as the API would (limits, an account's password, the schema, the values
 * its indexes hold), and decides whether it keeps its id.
 */
export function prepare(
  { line, text }: RecordText,
  limits: Config,
  collection: Pick<Collection, 'account' | 'schema' | 'singular' | 'plural'>,
  newIds: boolean,
  indexedPaths: readonly (readonly string[])[] = [],
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
  const { fields, hash, password } = passwordOf(
    collection,
    withoutSystemFields(value as Record<string, unknown>),
    line,
  );
  const violations = collection.schema?.check(fields) ?? [];
  if (violations.length > 0) throw schemaBreach(line, violations);
  const oversized = oversizedIndexedValue(fields, indexedPaths, limits.maxIndexedValueBytes);
  if (oversized) throw new BadRecord(line, `${oversized.pointer}: ${oversized.message}`);
  const data = JSON.stringify(fields);
  const bytes = Buffer.byteLength(data);
  if (bytes > limits.maxRecordBytes) {
    throw new BadRecord(
      line,
      `the record is ${bytes} bytes as compact JSON, more than MAX_RECORD_BYTES (${limits.maxRecordBytes})`,
    );
  }
  const secret = { ...(hash !== undefined && { hash }), ...(password !== undefined && { password }) };
  const { id, createdAt, updatedAt } = value as Record<string, unknown>;
  if (newIds || id === undefined) return { line, data, fields, ...secret };

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
  const kept = { id, data, version: restoredVersion(), createdAt: created, updatedAt: updated };
  return { line, data, fields, kept, ...secret };
}

/**
 * An account's fields without its password, and the password: a PHC scrypt string (as
 * `restock export --password-hashes` writes) is taken as the hash itself; anything else is
 * the password, checked as a create checks it. In other collections, `password` is a field,
 * but never a hash: that is an export of accounts imported where its collection holds none
 * (SCHEMAS unset, or another folder), which would keep the secret as data any read shows.
 */
function passwordOf(
  collection: Pick<Collection, 'account' | 'schema' | 'singular' | 'plural'>,
  sent: Record<string, unknown>,
  line: number,
): { fields: Record<string, unknown>; hash?: string; password?: string } {
  const given = sent[PASSWORD_FIELD];
  const hash = typeof given === 'string' && isPasswordHash(given);
  if (hash && !collection.account) {
    throw new BadRecord(
      line,
      `${PASSWORD_FIELD} holds a password hash, which only a collection of accounts keeps (x-auth in its ` +
        `schema), and ${collection.plural} holds none: is SCHEMAS set to the folder that declares it?`,
    );
  }
  if (hash) {
    const { [PASSWORD_FIELD]: _, ...fields } = sent;
    return { fields, hash: given };
  }
  try {
    return takePassword(collection, sent);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    throw schemaBreach(line, error.extras.errors ?? [{ pointer: `/${PASSWORD_FIELD}`, message: error.message }]);
  }
}

function schemaBreach(line: number, [first, ...more]: readonly { pointer: string; message: string }[]): BadRecord {
  const others = more.length > 0 ? ` (and ${more.length} more)` : '';
  return new BadRecord(line, `breaks the schema: ${first?.pointer || '/'} ${first?.message}${others}`);
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
