/**
 * What the records floor refuses, as typed errors: a kind, a sentence for the client and
 * the failed checks. The HTTP layer answers each as the problem document of the same kind
 * (src/http/problem.ts), whose status and title it owns. Nothing here knows of HTTP.
 */

/** Every way a request on records can be refused here; each is also a problem type the API documents. */
export type RefusalKind =
  | 'invalid-query'
  | 'invalid-record'
  | 'schema-violation'
  | 'record-too-large'
  | 'indexed-value-too-large'
  | 'unique-conflict'
  | 'too-many-records'
  | 'too-many-operations'
  | 'batch-too-large'
  | 'invalid-batch'
  | 'method-not-allowed'
  | 'too-many-costly-queries'
  | 'too-many-feeds'
  | 'overloaded'
  | 'invalid-idempotency-key'
  | 'idempotency-key-in-use'
  | 'idempotency-key-reused'
  | 'idempotent-record-gone'
  | 'not-found'
  | 'forbidden'
  | 'invalid-credentials'
  | 'invalid-provider-flow'
  | 'service-unavailable'
  | 'too-many-sign-ins'
  | 'invalid-token'
  | 'invalid-current-password'
  | 'mail-unavailable'
  | 'too-many-requests'
  | 'file-too-large'
  | 'file-type-refused'
  | 'too-many-files'
  | 'image-too-large'
  | 'file-not-uploaded'
  | 'incomplete-upload'
  | 'invalid-thumbnail'
  | 'invalid-webhook'
  | 'webhook-address-refused';

/** One failed check inside a request body or query, as a JSON Pointer and a message. */
export interface FieldError {
  pointer: string;
  message: string;
}

export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly detail: string,
    readonly extras: {
      errors?: FieldError[];
      /** Seconds after which the same request may succeed (a cap that is full now). */
      retryAfter?: number;
    } = {},
  ) {
    super(detail);
  }
}

/** A refused query parameter (`parameter` empty: the query as a whole), pointed at by its name. */
export function invalidQuery(parameter: string, message: string): Refusal {
  const where = parameter === '' ? 'The query' : `The query parameter ${parameter}`;
  return new Refusal('invalid-query', `${where} ${message}.`, {
    errors: [{ pointer: `/${parameter}`, message }],
  });
}
