/**
 * A cap on the bytes of a value an index holds. PostgreSQL's B-tree refuses an entry past
 * about 2.7 KB (with a failure, a `500`), where SQLite stores any: restock refuses a value
 * of an indexed or unique field past MAX_INDEXED_VALUE_BYTES on both stores alike, naming
 * it, before either database sees it.
 */

import { isObject } from './is-object.js';
import { escapePointer } from './json-pointer.js';

/** The most MAX_INDEXED_VALUE_BYTES may be: what PostgreSQL's B-tree takes, less room for the index's other terms. */
export const MAX_INDEXED_VALUE_BYTES = 2600;

export interface OversizedValue {
  pointer: string;
  message: string;
}

/**
 * The first value of `fields` at one of `paths` whose text (a string, or the JSON of an
 * array or object) passes `maxBytes`, or undefined. Numbers, booleans and null are small.
 */
export function oversizedIndexedValue(
  fields: unknown,
  paths: readonly (readonly string[])[],
  maxBytes: number,
): OversizedValue | undefined {
  for (const path of paths) {
    let value = fields;
    for (const step of path) {
      value = isObject(value) && Object.hasOwn(value, step) ? value[step] : undefined;
    }
    if (typeof value !== 'string' && !isObject(value) && !Array.isArray(value)) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    // A UTF-16 unit is at most 3 bytes of UTF-8: most values need no count.
    if (text.length * 3 <= maxBytes) continue;
    const bytes = Buffer.byteLength(text);
    if (bytes <= maxBytes) continue;
    return {
      pointer: `/${path.map(escapePointer).join('/')}`,
      message: `is ${bytes} bytes, more than an indexed field holds (${maxBytes}, MAX_INDEXED_VALUE_BYTES)`,
    };
  }
  return undefined;
}
