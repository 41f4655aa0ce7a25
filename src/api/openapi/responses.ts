/**
 * Building blocks of the OpenAPI document: responses, response and request headers, and
 * the problems an operation can end in.
 */
import { type TSchema, Type } from 'typebox';
import { OVERRIDE_HEADER_NAMES } from '../methods.js';
import { PROBLEM_TYPES, type ProblemKind, problemTypeUri } from '../problem-types.js';
import { PROBLEM_COMPONENT_ID } from './problem-component.js';

/** A response in the shape @fastify/swagger documents. */
export interface ResponseSchema {
  description: string;
  headers?: Record<string, TSchema>;
  content?: Record<string, { schema: TSchema }>;
  type?: 'null';
}

/** A reference to a schema of the document's `components`. */
export function componentRef(name: string): TSchema {
  return Type.Unsafe({ $ref: `#/components/schemas/${name}` });
}

/** A JSON response (`application/json`) with `schema` and optional response headers. */
export function jsonResponse(description: string, schema: TSchema, headers?: Record<string, TSchema>): ResponseSchema {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

/** A response without a body (204, 304). */
export function emptyResponse(description: string, headers?: Record<string, TSchema>): ResponseSchema {
  return { description, type: 'null', ...(headers ? { headers } : {}) };
}

/** Response headers, as documented. */
export const ResponseHeaders = {
  etag: Type.String({ description: "The record's entity tag; changes whenever the record changes." }),
  location: Type.String({ description: 'The canonical path of the created record.' }),
  link: Type.String({ description: 'RFC 8288 link to the next page (rel="next"), while there are more.' }),
  totalCount: Type.Integer({ description: 'How many records match, when Prefer: count=exact asked.' }),
  replayed: Type.String({ description: 'true when this is the stored answer to an earlier request with the key.' }),
  retryAfter: Type.String({ description: 'Seconds to wait before retrying.' }),
  rateLimitLimit: Type.Integer({ description: 'Requests allowed per window (the IETF RateLimit header draft).' }),
  rateLimitRemaining: Type.Integer({ description: 'Requests left in the current window.' }),
  rateLimitReset: Type.Integer({ description: 'Seconds until the window resets.' }),
  wwwAuthenticate: Type.String({
    description: 'The Bearer challenge: error="invalid_token" for an unknown key, "insufficient_scope" for a read key.',
  }),
  allow: Type.String({ description: 'The methods the path takes.' }),
  preferenceApplied: Type.String({ description: 'return=minimal when the Prefer header was honoured.' }),
};

/** Problems any request can end in, whatever the route. */
const ALWAYS: readonly ProblemKind[] = ['bad-request', 'invalid-method-override', 'internal-error'];

/** The headers an error response carries, by status: what a client needs to retry or authenticate. */
const PROBLEM_HEADERS: Readonly<Partial<Record<number, Record<string, TSchema>>>> = {
  401: { 'WWW-Authenticate': ResponseHeaders.wwwAuthenticate },
  403: { 'WWW-Authenticate': ResponseHeaders.wwwAuthenticate },
  429: {
    'Retry-After': ResponseHeaders.retryAfter,
    'RateLimit-Limit': ResponseHeaders.rateLimitLimit,
    'RateLimit-Remaining': ResponseHeaders.rateLimitRemaining,
    'RateLimit-Reset': ResponseHeaders.rateLimitReset,
  },
  405: { Allow: ResponseHeaders.allow },
  503: { 'Retry-After': ResponseHeaders.retryAfter },
};

/**
 * The error responses of an operation: one per status among `kinds` (plus those any
 * request can get), each an RFC 9457 problem, described by the problem types it stands for.
 */
export function problemResponses(kinds: readonly ProblemKind[]): Record<number, ResponseSchema> {
  return problemResponsesOf([...ALWAYS, ...kinds]);
}

/** The error responses for exactly `kinds`, one per status: to add to those an operation documents. */
export function problemResponsesOf(kinds: readonly ProblemKind[]): Record<number, ResponseSchema> {
  const byStatus = new Map<number, ProblemKind[]>();
  for (const kind of kinds) {
    const status = PROBLEM_TYPES[kind].status;
    const same = byStatus.get(status) ?? [];
    if (!same.includes(kind)) byStatus.set(status, [...same, kind]);
  }
  const responses: Record<number, ResponseSchema> = {};
  for (const [status, sameStatus] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = problemDescription(sameStatus);
    const headers = PROBLEM_HEADERS[status];
    responses[status] = {
      description,
      ...(headers ? { headers } : {}),
      content: { 'application/problem+json': { schema: componentRef(PROBLEM_COMPONENT_ID) } },
    };
  }
  return responses;
}

/** How a response built by {@link problemResponsesOf} describes one problem kind. */
const problemSentence = (kind: ProblemKind) =>
  `${PROBLEM_TYPES[kind].title} (${problemTypeUri(kind)}): ${PROBLEM_TYPES[kind].description}`;

/** The description of a problem response standing for `kinds`, each named with its type and meaning. */
export const problemDescription = (kinds: readonly ProblemKind[]) => kinds.map(problemSentence).join(' ');

/**
 * The problem kinds a response built by {@link problemResponsesOf} stands for, in the order
 * it names them: read back from its description, so that responses of several operations
 * can be merged into one that names each kind once (./tunnelled.ts).
 */
export function problemKindsIn(description: string): ProblemKind[] {
  const at = (kind: ProblemKind) => description.indexOf(problemSentence(kind));
  return (Object.keys(PROBLEM_TYPES) as ProblemKind[]).filter((kind) => at(kind) >= 0).sort((a, b) => at(a) - at(b));
}

/** A documented request header; no example, since the reference page's "try it" would send it. */
const header = (description: string) => Type.Optional(Type.String({ description }));

/** The method override headers, documented on every collection operation. */
const OverrideHeaders = Object.fromEntries(
  OVERRIDE_HEADER_NAMES.map((name) => [
    name,
    header(
      'Method override: a client that can only send GET or POST sends this operation as POST (or GET) ' +
        `with ${name} set to its method (GET, POST, PUT, PATCH or DELETE; any case).`,
    ),
  ]),
);

export const RequestHeaders = {
  ifNoneMatch: header('An ETag the client holds; 304 without a body while it still matches.'),
  ifMatch: header('The ETag the change is based on; 412 and nothing written when the record has changed since.'),
  idempotencyKey: header('A key unique to this create; retrying with it never creates a second record.'),
  preferMinimal: header('return=minimal: answer 204 without a body.'),
  preferCount: header('count=exact: add X-Total-Count.'),
};

/** A request header schema: the override headers plus those an operation adds. */
export function requestHeaders(extra: Record<string, TSchema> = {}): TSchema {
  return Type.Object({ ...OverrideHeaders, ...extra });
}
