/**
 * Request bodies: JSON (`application/json` or any `+json` type) parsed once, with the
 * record limits (src/core/record-limits.ts) checked in the same pass, so that handlers only
 * ever see a clean object.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { invalidUtf8Offset } from '../../core/invalid-utf8.js';
import { checkLimits, type LimitCheckOptions, type RecordLimits } from '../../core/record-limits.js';
import { withoutSystemFields } from '../../core/system-fields.js';
import { SURROGATE_ESCAPE } from '../../core/text-faults.js';
import { HttpProblem } from '../problem.js';

/**
 * Matches `application/json`, `application/merge-patch+json` and any other `+json` media
 * type: a subtype of HTTP token characters (RFC 9110) ending in `+json`. That takes
 * `application/*+json` as sent too, the range the OpenAPI document lists, which a client
 * reading the document may send as it is written.
 */
const JSON_MEDIA_TYPE = /^application\/(?:[\w!#$%&'*+.^`|~-]+\+)?json(?:\s*;|$)/i;

/**
 * Replaces Fastify's JSON parser with one that accepts every `+json` type and reports
 * malformed JSON as a problem. Fastify's own parser also refuses `__proto__` keys; here
 * they are ordinary data (JSON.parse makes them own properties, never prototypes).
 */
export const jsonBody = fp(parseJsonBodies, { name: 'restock-json-body', fastify: '5.x' });

async function parseJsonBodies(app: FastifyInstance, limits: RecordLimits): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, jsonValue(body as Buffer, limits, request.routeOptions.config.batch === true));
    } catch (error) {
      done(error as Error);
    }
  });
}

/**
 * The value of a JSON body (or of a multipart body's `record` part), its record limits
 * checked in the same pass (a batch's, `batch`, per operation); undefined for an empty body.
 * Throws a 400 problem for text that is not UTF-8, not JSON, or breaks a limit.
 */
export function jsonValue(bytes: Buffer, limits: RecordLimits, batch = false): unknown {
  const bad = invalidUtf8Offset(bytes);
  if (bad !== undefined) {
    const byte = bytes[bad] === undefined ? 'the end' : `byte ${bad} (0x${bytes[bad].toString(16).padStart(2, '0')})`;
    throw new HttpProblem('malformed-json', `The body is not UTF-8 text: it goes wrong at ${byte}.`);
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpProblem('malformed-json', `The body is not valid JSON: ${(error as Error).message}`);
  }
  // JSON can only carry U+0000 and lone surrogates as escapes (\u0000, \uD800), so most
  // bodies skip those checks.
  const options = {
    text,
    refuseNul: text.includes('\\u0000'),
    refuseLoneSurrogates: SURROGATE_ESCAPE.test(text),
  };
  const broken =
    batch && Array.isArray(value) ? checkOperations(value, limits, options) : checkLimits(value, limits, options);
  if (broken) throw new HttpProblem('invalid-record', broken.message, { errors: [broken] });
  return value;
}

/**
 * A batch's operations, each held to the limits its request alone would be: its body as a
 * record, the rest as the small object it is. (The array's length has a cap of its own.)
 */
function checkOperations(operations: readonly unknown[], limits: RecordLimits, options: LimitCheckOptions) {
  for (const [index, operation] of operations.entries()) {
    // Anything else is refused by the batch's own reading, with a pointer to it.
    if (operation === null || typeof operation !== 'object' || Array.isArray(operation)) continue;
    const { body, ...rest } = operation as Record<string, unknown>;
    const broken =
      checkLimits(rest, limits, { ...options, at: `/${index}` }) ??
      (body === undefined ? undefined : checkLimits(body, limits, { ...options, at: `/${index}/body` }));
    if (broken) return broken;
  }
  return undefined;
}

/**
 * The client's fields of a body: the object without the system fields. Throws a 400
 * problem when the body is missing or not a JSON object.
 */
export function clientFields(body: unknown): Record<string, unknown> {
  return withoutSystemFields(objectBody(body));
}

/** A body that must be a JSON object, as sent; a 400 problem when it is missing or not one. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) {
    throw new HttpProblem('malformed-json', 'A JSON object is required as the request body.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
    throw new HttpProblem('malformed-json', `The body must be a JSON object, not ${kind}.`);
  }
  return body as Record<string, unknown>;
}
