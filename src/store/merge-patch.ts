/**
 * RFC 7396 JSON Merge Patch, applied in the application inside the write's transaction by
 * both stores. SQLite's json_patch and a PL/pgSQL function calling jsonb_set once per key
 * both look up every patch key in the record one at a time, so a merge cost record keys ×
 * patch keys (20,000 new keys onto 20,000 took seconds). Here each key is one hash lookup:
 * the cost is linear in the sizes of the record and the patch.
 */
import { isObject } from '../core/is-object.js';
import type { VersionCondition } from './store.js';
import { RecordTooLargeError } from './store-errors.js';

const FIELD = { enumerable: true, writable: true, configurable: true } as const;

/**
 * The result of applying `patch` to `target` (RFC 7396, section 2). `target` is changed in
 * place when it is an object, so it must be the caller's own (freshly parsed) value. Keys
 * are read only when own, and `__proto__` is written with defineProperty, so it is a field
 * like any other and no prototype is ever reached.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? target : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete result[key];
    } else {
      const merged = mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value);
      // Assignment is the fast path; only `__proto__` would reach a setter instead of a field.
      if (key === '__proto__') Object.defineProperty(result, key, { ...FIELD, value: merged });
      else result[key] = merged;
    }
  }
  return result;
}

/**
 * The fields `patch` (JSON text, or parsed: it is not changed) leaves of the stored fields
 * `data` (JSON text), as compact JSON; throws {@link RecordTooLargeError} when that is
 * longer than `maxBytes`.
 */
export function mergedFields(data: string, patch: string | object, maxBytes = Number.POSITIVE_INFINITY): string {
  const merged = JSON.stringify(mergePatch(JSON.parse(data), typeof patch === 'string' ? JSON.parse(patch) : patch));
  // A UTF-16 unit takes at most three UTF-8 bytes: only a text that may be too long is measured.
  if (merged.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(merged);
    if (bytes > maxBytes) throw new RecordTooLargeError(bytes, maxBytes);
  }
  return merged;
}

/** Whether a record at `version` meets `ifVersion` (undefined: no condition). */
export function versionMatches(ifVersion: VersionCondition | undefined, version: number): boolean {
  return ifVersion === undefined || ifVersion === '*' || ifVersion.includes(version);
}
