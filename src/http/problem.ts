/**
 * RFC 9457 problem details: the one shape every error response has.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_TYPES, type ProblemKind, problemTypeUri } from '../api/problem-types.js';
import { type FieldError, Refusal } from '../records/refusal.js';
import {
  IdempotencyConflictError,
  IdsExhaustedError,
  IndexedValueTooLargeError,
  InvalidPositionError,
  MissingReferenceError,
  PreconditionFailedError,
  RecordTooLargeError,
  ReferencedRecordError,
  type Referrer,
  StatementTimeoutError,
  StoreUnavailableError,
  UniqueViolationError,
} from '../store/store.js';

/** An error that is meant for the client: thrown anywhere, answered as a problem document. */
export class HttpProblem extends Error {
  readonly status: number;

  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly extras: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      cause?: unknown;
      /** Records that refer to the one a delete was refused for. */
      referrers?: readonly Referrer[];
    } = {},
  ) {
    super(detail, { cause: extras.cause });
    this.status = PROBLEM_TYPES[kind].status;
  }
}

/** Turns anything thrown while handling a request into the problem the client should see. */
export function toProblem(error: FastifyError | Error, requestId: string): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof Refusal) {
    const { errors, retryAfter } = error.extras;
    return new HttpProblem(error.kind, error.detail, {
      ...(errors ? { errors } : {}),
      ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
    });
  }
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
  if (error instanceof RecordTooLargeError) {
    return new HttpProblem(
      'record-too-large',
      `The record would be ${error.bytes} bytes as compact JSON, more than the ${error.limit} this server keeps; ` +
        'nothing was written.',
    );
  }
  if (error instanceof IndexedValueTooLargeError) {
    return new HttpProblem(
      'indexed-value-too-large',
      'A value of an indexed field is larger than its index holds; nothing was written.',
    );
  }
  if (error instanceof IdsExhaustedError) {
    return new HttpProblem('ids-exhausted', `No ids are left in ${error.collection}; nothing was written.`);
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
  if (error instanceof MissingReferenceError) {
    const count = error.errors.length === 1 ? 'A reference names' : `${error.errors.length} references name`;
    return new HttpProblem('missing-reference', `${count} no existing record; nothing was written.`, {
      errors: [...error.errors],
    });
  }
  if (error instanceof ReferencedRecordError) {
    const detail =
      error.reason === 'restrict'
        ? 'Other records refer to this one and do not allow its deletion; nothing was deleted.'
        : 'Deleting it would change more records that refer to it than one delete may; nothing was deleted.';
    return new HttpProblem('record-referenced', detail, { referrers: error.referrers });
  }
  if (error instanceof InvalidPositionError) {
    return new HttpProblem('invalid-query', 'The query parameter cursor does not fit this sort.', {
      errors: [{ pointer: '/cursor', message: 'does not fit this sort' }],
    });
  }
  if (error instanceof StatementTimeoutError) {
    return new HttpProblem('query-timeout', 'The query ran past its time budget and was stopped.', {
      headers: { 'retry-after': '5' },
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
    ...(problem.extras.referrers ? { referrers: problem.extras.referrers } : {}),
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
