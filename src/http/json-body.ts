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
    const broken = checkLimits(value, limits, text.includes('\\u0000'));
    if (broken) return done(new HttpProblem('invalid-record', broken.message, { errors: [broken] }));
    done(null, value);
  });
}

/**
 * Walks a parsed body once and returns the first limit it breaks. Recursion is safe: it
 * stops one level past `maxDepth`.
 *
 * With `refuseNul`, a string or field name holding U+0000 breaks a limit too: PostgreSQL
 * cannot store it in jsonb, and refusing it on every store keeps the stores' data
 * interchangeable (what one accepts, the other does).
 */
export function checkLimits(
  value: unknown,
  limits: BodyLimits,
  refuseNul = true,
): { pointer: string; message: string } | undefined {
  const nul = { message: 'contains the character U+0000, which restock does not store' };
  const visit = (node: unknown, depth: number, pointer: string): { pointer: string; message: string } | undefined => {
    if (typeof node === 'string') {
      return refuseNul && node.includes('\u0000') ? { pointer, ...nul } : undefined;
    }
    if (typeof node === 'number') {
      return Number.isFinite(node) ? undefined : { pointer, message: 'number is too large to store' };
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
      if (refuseNul && key.includes('\u0000')) return { pointer: here, message: `field name ${nul.message}` };
      const found = visit((node as Record<string, unknown>)[key], depth + 1, here);
      if (found) return found;
    }
    return undefined;
  };
  return visit(value, 1, '');
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
