/**
 * Request bodies: JSON (`application/json` or any `+json` type) parsed once, with the
 * record limits checked in the same pass, so that handlers only ever see a clean object.
 */
import type { FastifyInstance } from 'fastify';
import { HttpProblem } from './problem.js';

/** Limits a record must keep; each maps to a 400 problem naming where it was broken. */
export interface BodyLimits {
  /** Deepest nesting of objects and arrays; the record itself is depth 1. */
  maxDepth: number;
  /** Longest field name, at any depth. */
  maxFieldNameLength: number;
}

/** Matches `application/json`, `application/merge-patch+json` and any other `+json` media type. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json(?:\s*;|$)/i;

/**
 * Replaces Fastify's JSON parser with one that accepts every `+json` type and reports
 * malformed JSON as a problem. Fastify's own parser also refuses `__proto__` keys; here
 * they are ordinary data (JSON.parse makes them own properties, never prototypes).
 */
export function registerJsonBodyParser(app: FastifyInstance, limits: BodyLimits): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return done(new HttpProblem('malformed-json', `The body is not valid JSON: ${(error as Error).message}`));
    }
    // JSON can only carry U+0000 as the escape \u0000, so most bodies skip that check.
    const broken = checkLimits(value, limits, { text, refuseNul: text.includes('\\u0000') });
    if (broken) return done(new HttpProblem('invalid-record', broken.message, { errors: [broken] }));
    done(null, value);
  });
}

/** How {@link checkLimits} reads a body beyond its parsed value. */
export interface LimitCheckOptions {
  /**
   * The JSON text the value was parsed from. With it, an integer literal beyond 2^53 that a
   * double does not keep exactly breaks a limit: JSON.parse would silently change it.
   */
  text?: string;
  /**
   * Whether a string or field name holding U+0000 breaks a limit (default true): PostgreSQL
   * cannot store it in jsonb, and refusing it on every store keeps the stores' data
   * interchangeable (what one accepts, the other does).
   */
  refuseNul?: boolean;
}

type Broken = { pointer: string; message: string };

const NUL_MESSAGE = 'contains the character U+0000, which restock does not store';
const INEXACT_MESSAGE =
  'integer cannot be kept exactly: beyond 2^53 a JSON number is kept as a double, which would change it; ' +
  'send it as a string';

/**
 * Walks a parsed body once and returns the first limit it breaks. Recursion is safe: it
 * stops one level past `maxDepth`.
 */
export function checkLimits(value: unknown, limits: BodyLimits, options: LimitCheckOptions = {}): Broken | undefined {
  const { text, refuseNul = true } = options;
  let inexact: ReadonlySet<string> | undefined;
  // Only an integer beyond 2^53 can have been changed, so only such a body pays for a scan of its text.
  const isInexact = (node: number, pointer: string) => {
    if (text === undefined || Math.abs(node) <= Number.MAX_SAFE_INTEGER || !Number.isInteger(node)) return false;
    inexact ??= inexactIntegers(text);
    return inexact.has(pointer);
  };
  const visit = (node: unknown, depth: number, pointer: string): Broken | undefined => {
    if (typeof node === 'string') {
      return refuseNul && node.includes('\u0000') ? { pointer, message: NUL_MESSAGE } : undefined;
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
    for (const key of Object.keys(node)) {
      const here = `${pointer}/${escapePointer(key)}`;
      if (key.length > limits.maxFieldNameLength) {
        return { pointer: here, message: `field name longer than ${limits.maxFieldNameLength} characters` };
      }
      if (refuseNul && key.includes('\u0000')) return { pointer: here, message: `field name ${NUL_MESSAGE}` };
      const found = visit((node as Record<string, unknown>)[key], depth + 1, here);
      if (found) return found;
    }
    return undefined;
  };
  return visit(value, 1, '');
}

/** An integer literal: a JSON number token without fraction or exponent. */
const INTEGER_LITERAL = /^-?\d+$/;
/** A JSON number token, read from where it starts. */
const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The JSON Pointers of the integer literals in `text` that a double does not keep exactly
 * (see {@link isExactInteger}); where a key repeats, its last value counts, as in JSON.parse.
 * `text` must be valid JSON.
 *
 * Hand-written because JSON.parse keeps no trace of a number's text: a reviver sees it
 * (`context.source`) only from Node 21 on, and restock runs on Node 20; a lossless JSON
 * parser would slow every body down for what only bodies with an integer beyond 2^53 need.
 * It only tracks where it is (keys and array indexes) and reads number tokens.
 */
function inexactIntegers(text: string): Set<string> {
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

/**
 * Whether the integer literal `token` survives being kept as a double: the double, written
 * back as restock writes it, denotes the same integer. 2^64 does not (it comes back as
 * 18446744073709552000, another integer to a client that reads integers exactly, as
 * Python or Go's json.Number do); `100000000000000000000` does, and so does 10^300 written
 * out in full (it comes back as `1e+300`), as PostgreSQL writes back a stored `1e300`.
 * (Every literal of at most 15 characters survives; the scanner does not ask about those.)
 */
function isExactInteger(token: string): boolean {
  const double = Number(token);
  return Number.isFinite(double) && integerOf(String(double)) === BigInt(token);
}

/**
 * The integer that JavaScript's text of a double beyond 2^53 denotes: digits, or from 1e21
 * on a mantissa and an exponent (`1.5e+25`), never a fraction left over.
 */
function integerOf(text: string): bigint {
  const [mantissa = '', exponent = '0'] = text.split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  return BigInt(whole + fraction) * 10n ** BigInt(Number(exponent) - fraction.length);
}

/** RFC 6901 escaping of one reference token. */
function escapePointer(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Fields the server owns: ignored when a client sends them. */
const SYSTEM_FIELDS = ['id', 'createdAt', 'updatedAt'] as const;

/**
 * The client's fields of a create or modify body: the object without the system fields.
 * Throws a 400 problem when the body is missing or not a JSON object.
 */
export function clientFields(body: unknown): Record<string, unknown> {
  if (body === undefined) {
    throw new HttpProblem('malformed-json', 'A JSON object is required as the request body.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
    throw new HttpProblem('malformed-json', `The body must be a JSON object, not ${kind}.`);
  }
  const fields = body as Record<string, unknown>;
  if (!SYSTEM_FIELDS.some((name) => Object.hasOwn(fields, name))) return fields;
  const copy = { ...fields };
  for (const name of SYSTEM_FIELDS) delete copy[name];
  return copy;
}

/** The client's fields as the JSON text the store keeps. */
export function recordFields(body: unknown): string {
  return JSON.stringify(clientFields(body));
}
