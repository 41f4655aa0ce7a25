/**
 * Records as clients see them, written as text. The store hands back the client's fields as
 * JSON text, so a record is assembled by concatenation: stored JSON is never parsed and
 * re-serialized on the way out (the API, the change feed and `restock export` alike).
 */
import { systemFieldsOf } from '../core/system-fields.js';
import type { StoredRecord } from '../store/store.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** The record as clients see it: `id` first, then the client's fields, then the timestamps. */
export function renderRecord(record: StoredRecord): string {
  const fields = record.data.length > 2 ? `${record.data.slice(1, -1)},` : '';
  return `{"id":${record.id},${fields}"createdAt":"${record.createdAt}","updatedAt":"${record.updatedAt}"}`;
}

/** How a list writes each record: whole, or with only `fields` (paths) besides its id. */
export function recordRenderer(fields?: readonly (readonly string[])[]): (record: StoredRecord) => string {
  return fields ? (record) => renderFields(record, fields) : renderRecord;
}

/**
 * A record with only the named fields (`fields=name,address.city`): the id always, then
 * each named field that exists, nested ones inside their parents. This is the one read
 * path that parses stored JSON, because it has to pick inside it.
 */
function renderFields(record: StoredRecord, fields: readonly (readonly string[])[]): string {
  const whole = { ...(JSON.parse(record.data) as Record<string, unknown>), ...systemFieldsOf(record) };
  // Objects without a prototype, written with defineProperty: a field named __proto__ is
  // then just a field, and picking it can never reach Object.prototype.
  const picked: Record<string, unknown> = Object.create(null);
  define(picked, 'id', record.id);
  for (const path of fields) {
    let source: unknown = whole;
    let target = picked;
    for (const [i, segment] of path.entries()) {
      if (source === null || typeof source !== 'object' || !Object.hasOwn(source, segment)) break;
      source = (source as Record<string, unknown>)[segment];
      if (i === path.length - 1) {
        define(target, segment, source);
      } else {
        if (!Object.hasOwn(target, segment)) define(target, segment, Object.create(null));
        target = target[segment] as Record<string, unknown>;
      }
    }
  }
  return JSON.stringify(picked);
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
