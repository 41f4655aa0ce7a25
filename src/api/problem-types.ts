/**
 * The kinds of problem restock answers with (RFC 9457): each one's status, title and meaning;
 * accounts' own kinds are in ./account-problem-types.ts, files' in ./file-problem-types.ts,
 * webhooks' in ./webhook-problem-types.ts.
 */
import { ACCOUNT_PROBLEM_TYPES } from './account-problem-types.js';
import { FILE_PROBLEM_TYPES } from './file-problem-types.js';
import { WEBHOOK_PROBLEM_TYPES } from './webhook-problem-types.js';

/** Every kind of problem restock answers with: its status, title and what it means. */
export const PROBLEM_TYPES = {
  ...ACCOUNT_PROBLEM_TYPES,
  ...FILE_PROBLEM_TYPES,
  ...WEBHOOK_PROBLEM_TYPES,
  'bad-request': { status: 400, title: 'Bad request', description: 'The request could not be understood.' },
  'malformed-json': {
    status: 400,
    title: 'Malformed JSON',
    description: 'The body is not valid JSON in UTF-8, or not a JSON object where a record is expected.',
  },
  'invalid-record': {
    status: 400,
    title: 'Invalid record',
    description:
      'The body breaks a limit on records: nesting depth, field name length, a number out of range or an integer a double cannot keep exactly, or U+0000 or a lone surrogate in text.',
  },
  'invalid-query': {
    status: 400,
    title: 'Invalid query parameter',
    description:
      'A query parameter is unknown or its value is malformed, or two came that cannot go together (offset with cursor).',
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
      'The request needs an API key or an access token (Authorization: Bearer <key or token>) and carries none, ' +
      'or one this server does not accept (unknown, expired, or signed by a key it does not trust).',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description:
      "The credential is valid but may not do this: a read key cannot write, or the collection's rules " +
      'let this account see the record but not change it.',
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
  'record-referenced': {
    status: 409,
    title: 'Record referenced',
    description:
      'Other records refer to this one through a reference that does not allow its deletion (or more of them than ' +
      'one delete may change); `referrers` names some of them. Nothing was deleted.',
  },
  'precondition-failed': {
    status: 412,
    title: 'Precondition failed',
    description: 'The record changed (or is gone) since the ETag in If-Match was read; nothing was written.',
  },
  'payload-too-large': { status: 413, title: 'Body too large', description: 'The request body exceeds the limit.' },
  'too-many-records': {
    status: 413,
    title: 'Too many records',
    description: 'A create sent more records in one array than the server takes at once (MAX_BULK_RECORDS).',
  },
  'too-many-operations': {
    status: 413,
    title: 'Too many operations',
    description: 'A batch carried more operations than the server runs in one (MAX_BATCH_OPERATIONS); nothing ran.',
  },
  'batch-too-large': {
    status: 413,
    title: 'Batch too large',
    description:
      'A batch whose operations, with their references to earlier results filled in, would write more than one ' +
      'request may carry (BODY_LIMIT); nothing ran.',
  },
  'record-too-large': {
    status: 413,
    title: 'Record too large',
    description:
      'The record as created or changed would be larger than the server keeps (MAX_RECORD_BYTES, counted as ' +
      'compact JSON); nothing was written.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description:
      'Request bodies must be application/json or another +json type (or multipart/form-data, for a create or a change of a collection with file fields).',
  },
  'schema-violation': {
    status: 422,
    title: 'Record breaks the schema',
    description: "The record (for a change: the record as it would be after it) breaks the collection's schema.",
  },
  'invalid-batch': {
    status: 422,
    title: 'Invalid batch',
    description:
      'A batch that cannot run as sent: not an array of operations, an operation without a method or path this ' +
      'server serves, or a reference to a result that no earlier operation gives; nothing ran.',
  },
  'missing-reference': {
    status: 422,
    title: 'Reference to a missing record',
    description:
      'A field that holds the id of a record of another collection names one that does not exist; nothing was written.',
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'Idempotency-Key reused',
    description: 'This Idempotency-Key was already used for a different request; use a new key for a new request.',
  },
  'idempotent-record-gone': {
    status: 410,
    title: 'Created record gone',
    description: 'This Idempotency-Key created a record that has since been deleted; its response is no longer kept.',
  },
  'too-many-requests': {
    status: 429,
    title: 'Too many requests',
    description:
      'This credential (or address, without one) used up its request budget; retry after Retry-After seconds. ' +
      'The RateLimit-* headers give the budget. Also: mail asked for too often (a password reset for one ' +
      'address, or from one client; a verification resent), past its own count.',
  },

  'too-many-costly-queries': {
    status: 429,
    title: 'Too many costly queries',
    description:
      'This credential, or its address (whatever accounts sign in from it), already has as many costly list ' +
      'queries running as it may (filters, searches, sorts without an index, counts); retry once one has finished.',
  },
  'indexed-value-too-large': {
    status: 413,
    title: 'Indexed value too large',
    description:
      'A value of an indexed or unique field is larger than an index holds (MAX_INDEXED_VALUE_BYTES); ' +
      '`errors` points at it. Nothing was written.',
  },
  'too-many-feeds': {
    status: 429,
    title: 'Too many change feeds',
    description:
      'This credential, or its address (whatever accounts sign in from it), already has as many change feeds ' +
      'open as it may; close one, or retry after Retry-After seconds.',
  },
  'headers-too-large': {
    status: 431,
    title: 'Request headers too large',
    description: 'The request headers exceed the size this server accepts; the connection is closed.',
  },
  'ids-exhausted': {
    status: 507,
    title: 'No ids left',
    description:
      'The collection has handed out every id up to 2^53 - 1 (the largest integer a JSON number keeps exactly); ' +
      'nothing was written. Retrying does not help: an operator must move the data to a new collection.',
  },
  overloaded: {
    status: 503,
    title: 'Server overloaded',
    description: 'The server is too busy to take this request now; retry after the time in Retry-After.',
  },
  'query-timeout': {
    status: 503,
    title: 'Query took too long',
    description:
      'The query ran past the time budget of one statement and was stopped; retry later, or narrow it ' +
      '(a filter or sort on an indexed field, a smaller page).',
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

/** Where the description of each problem type is served (src/http/routes/service.ts). */
export const problemTypeUri = (kind: ProblemKind): string => `/problems/${kind}`;
