/**
 * Request bodies: JSON (`application/json` or any `+json` type) parsed once, with the
 * record limits checked in the same pass, so that handlers only ever see a clean object.
 */
import type { FastifyInstance } from 'fastify';
import { inexactIntegers } from './inexact-integers.js';
import { escapePointer } from './json-pointer.js';
import { HttpProblem } from './problem.js';
import { SURROGATE_ESCAPE, textFault } from './text-faults.js';

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
    // JSON can only carry U+0000 and lone surrogates as escapes (\u0000, \uD800), so most
    // bodies skip those checks.
    const broken = checkLimits(value, limits, {
      text,
      refuseNul: text.includes('\\u0000'),
      refuseLoneSurrogates: SURROGATE_ESCAPE.test(text),
    });
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
  /** Whether a string or field name holding U+0000 breaks a limit (default true; see text-faults.ts). */
  refuseNul?: boolean;
  /** Whether one holding a lone surrogate breaks a limit (default true; see text-faults.ts). */
  refuseLoneSurrogates?: boolean;
}

type Broken = { pointer: string; message: string };

const INEXACT_MESSAGE =
  'integer cannot be kept exactly: beyond 2^53 a JSON number is kept as a double, which would change it; ' +
  'send it as a string';

/**
 * Walks a parsed body once and returns the first limit it breaks. Recursion is safe: it
 * stops one level past `maxDepth`.
 */
export function checkLimits(value: unknown, limits: BodyLimits, options: LimitCheckOptions = {}): Broken | undefined {
  const { text, refuseNul = true, refuseLoneSurrogates = true } = options;
  const badText = (node: string) => textFault(node, refuseNul, refuseLoneSurrogates);
  let inexact: ReadonlySet<string> | undefined;
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
    for (const key of Object.keys(node)) {
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
  return visit(value, 1, '');
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
