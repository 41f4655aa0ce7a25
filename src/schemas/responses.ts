/**
 * The response and header schemas of the routes: what each operation answers, with which
 * headers, and which problems it can end in. They document the API; record bodies are
 * written as pre-rendered JSON text, which Fastify sends without serializing.
 */
import { type TSchema, Type } from 'typebox';
import { PROBLEM_TYPES, type ProblemKind, problemTypeUri } from '../http/problem.js';
import { PROBLEM_SCHEMA_ID } from './problem.js';

/** A response in the shape @fastify/swagger documents and Fastify compiles per content type. */
export interface ResponseSchema {
  description: string;
  headers?: Record<string, TSchema>;
  content?: Record<string, { schema: TSchema }>;
  type?: 'null';
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
  retryAfter: Type.String({ description: 'Seconds to wait before retrying.' }),
  preferenceApplied: Type.String({ description: 'return=minimal when the Prefer header was honoured.' }),
};

/** Problems any request can end in, whatever the route. */
const ALWAYS: readonly ProblemKind[] = ['bad-request', 'invalid-method-override', 'internal-error'];

/**
 * The error responses of an operation: one per status among `kinds` (plus those any
 * request can get), each an RFC 9457 problem, described by the problem types it stands for.
 */
export function problemResponses(kinds: readonly ProblemKind[]): Record<number, ResponseSchema> {
  const byStatus = new Map<number, ProblemKind[]>();
  for (const kind of [...ALWAYS, ...kinds]) {
    const status = PROBLEM_TYPES[kind].status;
    const same = byStatus.get(status) ?? [];
    if (!same.includes(kind)) byStatus.set(status, [...same, kind]);
  }
  const responses: Record<number, ResponseSchema> = {};
  for (const [status, sameStatus] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = sameStatus
      .map((kind) => `${PROBLEM_TYPES[kind].title} (${problemTypeUri(kind)}): ${PROBLEM_TYPES[kind].description}`)
      .join(' ');
    responses[status] = {
      description,
      ...(status === 503 ? { headers: { 'Retry-After': ResponseHeaders.retryAfter } } : {}),
      content: { 'application/problem+json': { schema: Type.Ref(PROBLEM_SCHEMA_ID) } },
    };
  }
  return responses;
}

const override = (name: string) =>
  Type.Optional(
    Type.String({
      description:
        `Method override: a client that can only send GET or POST sends this operation as POST (or GET) ` +
        `with ${name} set to its method (GET, POST, PUT, PATCH or DELETE; any case).`,
      // No example: the reference page's "try it" fills parameters in with theirs.
    }),
  );

/**
 * Request headers every resource operation documents: the three names of the method
 * override. The override itself is checked before routing (src/http/method-override.ts),
 * so these only ever see values that already passed.
 */
export const OverrideHeaders = {
  'HTTP-X-HTTP-METHOD': override('HTTP-X-HTTP-METHOD'),
  'X-HTTP-Method': override('X-HTTP-Method'),
  'X-HTTP-Method-Override': override('X-HTTP-Method-Override'),
};

/** A request header schema: the override headers plus those an operation adds. */
export function requestHeaders(extra: Record<string, TSchema> = {}): TSchema {
  return Type.Object({ ...OverrideHeaders, ...extra });
}

export const IfNoneMatchHeader = Type.Optional(
  Type.String({ description: 'An ETag the client holds; 304 without a body while it still matches.' }),
);

export const PreferHeader = Type.Optional(Type.String({ description: 'return=minimal: answer 204 without a body.' }));
