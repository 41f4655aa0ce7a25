/**
 * What a store throws that the HTTP layer answers with a problem of its own (anything
 * else is a 500): each says what went wrong without naming the database.
 */

/** The largest id restock hands out: 2^53 − 1, the largest integer a JSON number keeps exactly. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** The database cannot be reached or is too busy; the request may be retried later. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** A statement ran past its time budget and was stopped; the request may be retried later. */
export class StatementTimeoutError extends StoreUnavailableError {
  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(`a statement ran past its budget of ${timeoutMs} ms`, options);
    this.name = 'StatementTimeoutError';
  }
}

/** A conditional write found the record changed (or gone): nothing was written. */
export class PreconditionFailedError extends Error {
  constructor() {
    super('the record is not at the version the request names');
    this.name = 'PreconditionFailedError';
  }
}

/** A position (from a client's cursor) that does not fit the query's sort. */
export class InvalidPositionError extends Error {
  constructor() {
    super('the position does not fit this sort');
    this.name = 'InvalidPositionError';
  }
}

/** An idempotent create lost its claim to another attempt: nothing was written. */
export class IdempotencyConflictError extends Error {
  constructor() {
    super('the idempotency key was taken over by another attempt');
    this.name = 'IdempotencyConflictError';
  }
}

/** A write would give a unique field a value another record has: nothing was written. */
export class UniqueViolationError extends Error {
  constructor(
    readonly collection: string,
    readonly path: readonly string[],
  ) {
    super(`${collection}.${path.join('.')} must be unique`);
    this.name = 'UniqueViolationError';
  }
}

/** A field where an error was found in a record (a JSON Pointer), and what is wrong there. */
export interface FieldError {
  pointer: string;
  message: string;
}

/** A write names records (`x-ref`) that do not exist: nothing was written. */
export class MissingReferenceError extends Error {
  constructor(readonly errors: readonly FieldError[]) {
    super(`${errors.length === 1 ? 'a reference names' : 'references name'} no record`);
    this.name = 'MissingReferenceError';
  }
}

/** A record that others refer to, where they say they restrict its deletion. */
export interface Referrer {
  collection: string;
  id: number;
  /** The reference's name (`items.productId`). */
  field: string;
}

/**
 * A delete found records that refer to the record and do not allow it (or more of them to
 * change than one delete may change): nothing was deleted.
 */
export class ReferencedRecordError extends Error {
  constructor(
    /** Some of the records that refer to it (at most a page of them). */
    readonly referrers: readonly Referrer[],
    /** Why: a restricting reference, or too many records to change. */
    readonly reason: 'restrict' | 'too-many',
  ) {
    super('other records refer to the record');
    this.name = 'ReferencedRecordError';
  }
}

/** The database cannot be set up as configured; the message says why in one line. */
export class StoreSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreSetupError';
  }
}

/**
 * A create would need an id above {@link MAX_ID}, which clients (JavaScript among them) could
 * not tell from its neighbours: nothing was written. Permanent for this collection.
 */
export class IdsExhaustedError extends Error {
  constructor(readonly collection: string) {
    super(`${collection} has handed out every id up to ${MAX_ID} (2^53 - 1)`);
    this.name = 'IdsExhaustedError';
  }
}

/**
 * A change would leave a record larger than the limit (its fields as compact JSON, in bytes):
 * nothing was written.
 */
/** A value too large for the index of its field: refused by the database's index. */
export class IndexedValueTooLargeError extends Error {
  constructor(options?: ErrorOptions) {
    super('a value is too large for the index of its field', options);
    this.name = 'IndexedValueTooLargeError';
  }
}

export class RecordTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the record would be ${bytes} bytes, more than ${limit}`);
    this.name = 'RecordTooLargeError';
  }
}

/** A batch stopped at step `index` (counted from 0), for `cause`; nothing of it was kept. */
export class BatchStepError extends Error {
  constructor(
    readonly index: number,
    override readonly cause: unknown,
  ) {
    super(`step ${index} of the batch failed`, { cause });
    this.name = 'BatchStepError';
  }
}

/** A flow's token (a reset's, an email change's) that is unknown, used, expired or another account's: nothing was written. */
export class InvalidFlowTokenError extends Error {
  constructor() {
    super('the token is not a live one of this account');
    this.name = 'InvalidFlowTokenError';
  }
}
