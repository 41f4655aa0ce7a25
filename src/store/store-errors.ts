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
export class RecordTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the record would be ${bytes} bytes, more than ${limit}`);
    this.name = 'RecordTooLargeError';
  }
}
