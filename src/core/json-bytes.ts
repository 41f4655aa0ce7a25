/**
 * The UTF-8 bytes of a parsed JSON value written as compact JSON, counted without writing it:
 * JSON.stringify of a large string, then Buffer.byteLength of the result, took 6 ms for
 * 740 KB here, where counting the string's own bytes took a tenth of a millisecond.
 */

/** A character JSON.stringify writes as an escape: a quote, a backslash, a control character, a lone surrogate. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

export function jsonBytes(value: unknown): number {
  if (typeof value === 'string') {
    return ESCAPED.test(value) ? Buffer.byteLength(JSON.stringify(value)) : Buffer.byteLength(value) + 2;
  }
  if (value === null || typeof value !== 'object') return String(JSON.stringify(value)).length;
  if (Array.isArray(value)) {
    let bytes = 2 + Math.max(0, value.length - 1);
    for (const item of value) bytes += jsonBytes(item);
    return bytes;
  }
  const entries = Object.entries(value);
  let bytes = 2 + Math.max(0, entries.length - 1);
  for (const [key, inner] of entries) bytes += jsonBytes(key) + 1 + jsonBytes(inner);
  return bytes;
}
