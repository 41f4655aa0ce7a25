/**
 * The JSON Pointers of the integer literals in a JSON text that JSON.parse changed: beyond
 * 2^53 a double keeps only some integers exactly (see exact-integer.ts).
 */
import { INTEGER_LITERAL, isExactInteger } from './exact-integer.js';
import { scanInexactIntegers } from './inexact-integers-node20.js';
import { escapePointer } from './json-pointer.js';

/** What JSON.parse hands a reviver as its third argument where it has source text access. */
interface ReviverContext {
  source?: string;
}

/** Stands, in a second parse, for a number whose literal a double did not keep. */
const INEXACT = Symbol('inexact integer');

/**
 * With JSON.parse's source text access (V8 11.4, so Node 21 on), a reviver sees every
 * primitive's own text: numbers it changed are marked, then found by one walk.
 */
export function inexactBySourceText(text: string): Set<string> {
  const marked: unknown = JSON.parse(text, (_key, value, context?: ReviverContext) => {
    const source = context?.source;
    if (typeof value !== 'number' || source === undefined || source.length <= 15) return value;
    return INTEGER_LITERAL.test(source) && !isExactInteger(source) ? INEXACT : value;
  });
  const found = new Set<string>();
  const walk = (node: unknown, pointer: string) => {
    if (node === INEXACT) found.add(pointer);
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) walk(child, `${pointer}/${escapePointer(key)}`);
    }
  };
  walk(marked, '');
  return found;
}

/** Whether this Node's JSON.parse gives a reviver the source text of each value. */
export const hasSourceTextAccess =
  JSON.parse('1', (_key, value, context?: ReviverContext) => context?.source === '1' && value === 1) === true;

/**
 * The pointers of the integer literals in `text` (valid JSON) that a double does not keep
 * exactly; where a key repeats, its last value counts, as in JSON.parse.
 */
export const inexactIntegers: (text: string) => Set<string> = hasSourceTextAccess
  ? inexactBySourceText
  : scanInexactIntegers;
