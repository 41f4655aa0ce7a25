/**
 * What a record must meet beyond the rules every body keeps (src/core/record-limits.ts): the
 * operator's schema for its collection, and the cap on the values its indexes hold. A create
 * is checked as sent; a change, as it leaves the record (inside the write's transaction).
 */
import type { Collection } from '../core/collection.js';
import { oversizedIndexedValue } from '../core/indexed-values.js';
import type { IndexedValues } from './bulk-create.js';
import { Refusal } from './refusal.js';

export interface RecordChecks {
  /** Refuses the fields of a create: every schema violation at once, or a value too large to index. */
  sent(fields: Record<string, unknown>): void;
  /** The same for a record as a change leaves it, given as its JSON text. */
  merged(data: string): void;
}

export function recordChecks(
  collection: Pick<Collection, 'singular' | 'schema'>,
  indexed: IndexedValues,
): RecordChecks {
  const { schema } = collection;
  const ensureValid = (fields: unknown, what: string) => {
    const violations = schema?.check(fields) ?? [];
    if (violations.length === 0) return;
    const count = violations.length === 1 ? 'one problem' : `${violations.length} problems`;
    throw new Refusal('schema-violation', `The ${collection.singular} ${what} breaks the schema (${count}).`, {
      errors: violations,
    });
  };
  const ensureIndexable = (fields: unknown) => {
    const oversized = oversizedIndexedValue(fields, indexed.paths, indexed.maxBytes);
    if (!oversized) return;
    const detail = 'A value of an indexed field is larger than its index holds; nothing was written.';
    throw new Refusal('indexed-value-too-large', detail, { errors: [oversized] });
  };
  return {
    sent(fields) {
      ensureValid(fields, 'sent');
      ensureIndexable(fields);
    },
    merged(data) {
      // No value can pass the cap while the whole record is smaller: most changes parse nothing.
      const large = indexed.paths.length > 0 && data.length * 3 > indexed.maxBytes;
      if (!schema && !large) return;
      const fields = JSON.parse(data) as unknown;
      ensureValid(fields, 'as changed');
      if (large) ensureIndexable(fields);
    },
  };
}
