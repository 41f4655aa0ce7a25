/**
 * RFC 9457 problem details: the one shape every error response has.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  IdempotencyConflictError,
  InvalidPositionError,
  PreconditionFailedError,
  StoreUnavailableError,
  UniqueViolationError,
} from '../store/store.js';

/** Every kind of problem restock answers with: its status, title and what it means. */
export const PROBLEM_TYPES = {
  'bad-request': { status: 400, title: 'Bad request', description: 'The request could not be understood.' },
  'malformed-json': {
    status: 400,
    title: 'Malformed JSON',
    description: 'The body is not valid JSON, or not a JSON object where a record is expected.',
  },
  'invalid-record': {
    status: 400,
    title: 'Invalid record',
    description:
      'The body breaks a limit on records: nesting depth, field name length, a number out of range or an integer a double cannot keep exactly, or U+0000 in text.',
  },
  'invalid-query': {
    status: 400,
    title: 'Invalid query parameter',
    description: 'A query parameter is unknown or its value is malformed.',
  },
  'invalid-method-override': {
    status: 400,
    title: 'Invalid method override',
    description:
      'The method override header holds an unknown value, several headers disagree, or it came on a wire ' +
      'method that may not carry it.',
  },
  'invalid-idempotency-key': {
    status: 400,
    title: 'Invalid Idempotency-Key',
    description: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description:
      'The request needs an API key (Authorization: Bearer <key>) and carries none, or one this server does not know.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: 'The API key is valid but its scope does not allow this method (a read key cannot write).',
  },
  'not-found': { status: 404, title: 'Not found', description: 'No such path, or no record with that id.' },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but does not take this method; the Allow header lists those it takes.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    description:
      'The request headers or body did not arrive within the time this server allows; the connection is closed.',
  },
  'idempotency-key-in-use': {
    status: 409,
    title: 'Idempotency-Key in use',
    description: 'A request with this Idempotency-Key is still being processed; retry after it has finished.',
  },
  'unique-conflict': {
    status: 409,
    title: 'Value already taken',
    description: 'A field that must be unique in its collection already has this value in another record.',
  },
  'precondition-failed': {
    status: 412,
    title: 'Precondition failed',
    description: 'The record changed (or is gone) since the ETag in If-Match was read; nothing was written.',
  },
  'payload-too-large': { status: 413, title: 'Body too large', description: 'The request body exceeds the limit.' },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'Request bodies must be application/json or another +json type.',
  },
  'schema-violation': {
    status: 422,
    title: 'Record breaks the schema',
    description: "The record (for a change: the record as it would be after it) breaks the collection's schema.",
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'Idempotency-Key reused',
    description: 'This Idempotency-Key was already used for a different request; use a new key for a new request.',
  },
  'too-many-requests': {
    status: 429,
    title: 'Too many requests',
    description:
      'This credential (or address, without one) used up its request budget; retry after Retry-After seconds. ' +
      'The RateLimit-* headers give the budget.',
  },
  'headers-too-large': {
    status: 431,
    title: 'Request headers too large',
    description: 'The request headers exceed the size this server accepts; the connection is closed.',
  },
  overloaded: {
    status: 503,
    title: 'Server overloaded',
    description: 'The server is too busy to take this request now; retry after the time in Retry-After.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    description: 'The database cannot be reached right now; retry after the time in Retry-After.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal server error',
    description: 'Something unexpected went wrong; the log has the details under the request id.',
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ProblemKind = keyof typeof PROBLEM_TYPES;

/** Where the description of each problem type is served. */
export const problemTypeUri = (kind: ProblemKind): string => `/problems/${kind}`;

/** One failed check inside a request body or query, as a JSON Pointer and a message. */
export interface ProblemFieldError {
  pointer: string;
  message: string;
}

/** An error that is meant for the client: thrown anywhere, answered as a problem document. */
export class HttpProblem extends Error {
  readonly status: number;

  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly extras: { errors?: ProblemFieldError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, { cause: extras.cause });
    this.status = PROBLEM_TYPES[kind].status;
  }
}

/** Turns anything thrown while handling a request into the problem the client should see. */
export function toProblem(error: FastifyError | Error, requestId: string): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof PreconditionFailedError) {
    return new HttpProblem(
      'precondition-failed',
      'The record is not at the version If-Match names; nothing was written.',
    );
  }
  if (error instanceof IdempotencyConflictError) {
    return new HttpProblem(
      'idempotency-key-in-use',
      'Another attempt took over this Idempotency-Key; nothing was written.',
    );
  }
  if (error instanceof UniqueViolationError) {
    // A unique index the store could not trace to a field (one an operator made by hand).
    if (error.path.length === 0) {
      return new HttpProblem('unique-conflict', 'Another record already has a value that must be unique.');
    }
    const field = error.path.join('.');
    return new HttpProblem('unique-conflict', `Another record already has this ${field}; ${field} must be unique.`, {
      errors: [{ pointer: `/${error.path.join('/')}`, message: 'is already taken' }],
    });
  }
  if (error instanceof InvalidPositionError) {
    return new HttpProblem('invalid-query', 'The query parameter cursor does not fit this sort.', {
      errors: [{ pointer: '/cursor', message: 'does not fit this sort' }],
    });
  }
  if (error instanceof StoreUnavailableError) {
    return new HttpProblem('service-unavailable', 'The database is unavailable; try again shortly.', {
      headers: { 'retry-after': '5' },
    });
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const errors = fastifyError.validation.map((item) => ({
      pointer: `${item.instancePath || ''}`,
      message: item.message ?? 'is invalid',
    }));
    const where = fastifyError.validationContext === 'querystring' ? 'query parameter' : 'request';
    return new HttpProblem(
      fastifyError.validationContext === 'querystring' ? 'invalid-query' : 'bad-request',
      `Invalid ${where}: ${fastifyError.message}`,
      { errors },
    );
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpProblem('payload-too-large', 'The request body is larger than this server accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpProblem('unsupported-media-type', 'Send the body as application/json (or a +json type).');
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return new HttpProblem('bad-request', fastifyError.message);
  return new HttpProblem('internal-error', `An unexpected error occurred. Request id: ${requestId}.`);
}

/** The media type of every error response. */
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/**
 * The JSON text of a problem. `instance` is the request path; it is left out only when
 * there is none (a request so broken that Node could not read its request line).
 */
export function problemDocument(problem: HttpProblem, instance: string | undefined): string {
  return JSON.stringify({
    type: problemTypeUri(problem.kind),
    title: PROBLEM_TYPES[problem.kind].title,
    status: problem.status,
    detail: problem.detail,
    ...(instance === undefined ? {} : { instance }),
    ...(problem.extras.errors ? { errors: problem.extras.errors } : {}),
  });
}

/** Sends a problem document, with `instance` set to the request path. */
export function sendProblem(reply: FastifyReply, request: FastifyRequest, problem: HttpProblem): FastifyReply {
  if (problem.extras.headers) reply.headers(problem.extras.headers);
  return reply
    .code(problem.status)
    .type(PROBLEM_TYPE)
    .send(problemDocument(problem, request.url.split('?', 1)[0]));
}
