/**
 * The limits every record keeps, whichever way it arrives (a request body, `restock
 * import`) or is checked (`restock check`): how deep it nests, how long its field names
 * are, what text it may hold and which integers it may carry. The fields that are the
 * server's own are ./system-fields.ts's.
 */
import { inexactIntegers } from './inexact-integers.js';
import { escapePointer } from './json-pointer.js';
import { textFault } from './text-faults.js';

/** Limits a record must keep; each broken one is reported with where it was broken. */
export interface RecordLimits {
  /** Deepest nesting of objects and arrays; the record itself is depth 1. */
  maxDepth: number;
  /** Longest field name, at any depth. */
  maxFieldNameLength: number;
  /**
   * Most fields in all, nested objects' included (array items are not fields). Each costs
   * parsing, checks, search text and index upkeep on the write path: without a cap, one
   * request of 60,000 keys held SQLite's event loop for a second.
   */
  maxRecordFields?: number;
}

/** How {@link checkLimits} reads a record beyond its parsed value. */
export interface LimitCheckOptions {
  /**
   * The JSON text the value was parsed from. With it, an integer literal beyond 2^53 that a
   * double does not keep exactly breaks a limit: JSON.parse would silently change it.
   */
  text?: string;
  /** Whether a string or field name holding U+0000 breaks a limit (default true; see text-faults.ts). */
  refuseNul?: boolean;
  /** Whether one holding a lone surrogate breaks a limit (default true; see text-faults.ts). */
  refuseLoneSurrogates?: boolean;
  /** Where the value is inside `text` (a JSON Pointer; default the whole): the pointers returned start with it. */
  at?: string;
}

type Broken = { pointer: string; message: string };

const INEXACT_MESSAGE =
  'integer cannot be kept exactly: beyond 2^53 a JSON number is kept as a double, which would change it; ' +
  'send it as a string';

/**
 * Walks a parsed record once and returns the first limit it breaks. Recursion is safe: it
 * stops one level past `maxDepth`.
 */
export function checkLimits(value: unknown, limits: RecordLimits, options: LimitCheckOptions = {}): Broken | undefined {
  const { text, refuseNul = true, refuseLoneSurrogates = true, at = '' } = options;
  const badText = (node: string) => textFault(node, refuseNul, refuseLoneSurrogates);
  let inexact: ReadonlySet<string> | undefined;
  const maxFields = limits.maxRecordFields ?? Number.POSITIVE_INFINITY;
  let fields = 0;
  // Only an integer beyond 2^53 can have been changed, so only such a body pays for a scan of its text.
  const isInexact = (node: number, pointer: string) => {
    if (text === undefined || Math.abs(node) <= Number.MAX_SAFE_INTEGER || !Number.isInteger(node)) return false;
    inexact ??= inexactIntegers(text);
    return inexact.has(pointer);
  };
  const visit = (node: unknown, depth: number, pointer: string): Broken | undefined => {
    if (typeof node === 'string') {
      const message = badText(node);
      return message ? { pointer, message } : undefined;
    }
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return { pointer, message: 'number is too large to store' };
      return isInexact(node, pointer) ? { pointer, message: INEXACT_MESSAGE } : undefined;
    }
    if (node === null || typeof node !== 'object') return undefined;
    if (depth > limits.maxDepth) {
      return { pointer, message: `nesting deeper than ${limits.maxDepth} levels` };
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const found = visit(node[i], depth + 1, `${pointer}/${i}`);
        if (found) return found;
      }
      return undefined;
    }
    const keys = Object.keys(node);
    fields += keys.length;
    if (fields > maxFields)
      return { pointer, message: `more than ${maxFields} fields in the record, nested ones included` };
    for (const key of keys) {
      const here = `${pointer}/${escapePointer(key)}`;
      if (key.length > limits.maxFieldNameLength) {
        return { pointer: here, message: `field name longer than ${limits.maxFieldNameLength} characters` };
      }
      const bad = badText(key);
      if (bad) return { pointer: here, message: `field name ${bad}` };
      const found = visit((node as Record<string, unknown>)[key], depth + 1, here);
      if (found) return found;
    }
    return undefined;
  };
  return visit(value, 1, at);
}
