/**
 * Finding, by scanning the JSON text itself, the integer literals a double does not keep:
 * how Node 20 does what later Node versions do with JSON.parse's source text access.
 */
import { INTEGER_LITERAL, isExactInteger } from './exact-integer.js';
import { escapePointer } from './json-pointer.js';

/** A JSON number token, read from where it starts. */
const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The JSON Pointers of the integer literals in `text` that a double does not keep exactly
 * (see {@link isExactInteger}); where a key repeats, its last value counts, as in JSON.parse.
 * `text` must be valid JSON.
 *
 * Node 20 only: there, JSON.parse keeps no trace of a number's text (a reviver sees it as
 * `context.source` from Node 21 on, see inexact-integers.ts), and a lossless JSON parser
 * would slow every body down for what only bodies with an integer beyond 2^53 need. So this
 * is written by hand: it only tracks where it is (keys and array indexes) and reads number
 * tokens. Delete this file with Node 20.
 */
export function scanInexactIntegers(text: string): Set<string> {
  const found = new Set<string>();
  // One frame per open object or array: its own pointer, and the step (escaped key, or
  // index) the scanner is at inside it; a value's pointer is then one concatenation.
  const frames: { pointer: string; step: string | number }[] = [];
  const here = () => {
    const top = frames.at(-1);
    return top ? `${top.pointer}/${top.step}` : '';
  };
  let expectKey = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (expectKey) (frames.at(-1) as { step: string }).step = escapePointer(keyOf(text, i, end));
      i = end;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER_TOKEN.lastIndex = i;
      const token = NUMBER_TOKEN.exec(text)?.[0] ?? c;
      // A number that may be beyond 2^53 also clears what an earlier duplicate key left.
      if (token.length > 15 || /[eE]/.test(token)) {
        if (INTEGER_LITERAL.test(token) && !isExactInteger(token)) found.add(here());
        else if (found.size > 0) found.delete(here());
      }
      i += token.length;
    } else {
      if (c === '{' || c === '[') {
        frames.push({ pointer: here(), step: c === '[' ? 0 : '' });
        expectKey = c === '{';
      } else if (c === '}' || c === ']') {
        frames.pop();
      } else if (c === ',') {
        const top = frames.at(-1) as { step: string | number };
        if (typeof top.step === 'number') top.step++;
        else expectKey = true;
      } else if (c === ':') {
        expectKey = false;
      }
      i++;
    }
  }
  return found;
}

/** Where the string starting with the quote at `start` ends (just past its closing quote). */
function stringEnd(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  // A quote is escaped when an odd number of backslashes runs up to it.
  while (quote !== -1) {
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length; // unterminated: not valid JSON, which the caller has ruled out
}

/** The key whose string token spans `start` to `end`, decoded only when it holds an escape. */
function keyOf(text: string, start: number, end: number): string {
  const token = text.slice(start, end);
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}
