/**
 * Which PostgreSQL errors mean something to the store: "the database is not there right
 * now" (the client may retry: 503) rather than "this statement is wrong" (a bug: 500), a
 * statement past its budget, a unique index's refusal, the end of a table's ids.
 */
import { DatabaseError } from 'pg';
import type { Fault } from '../sql/driver.js';

/**
 * SQLSTATE classes and codes of an unreachable, restarting or overloaded server:
 * connection exceptions (08), insufficient resources (53), operator intervention (57:
 * shutdown, crash) and "too many connections".
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-4]|58)/;

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

/** What node-postgres throws, as plain Errors, when a connection breaks or times out. */
const DRIVER_MESSAGES = /Connection terminated|connection timeout|timeout exceeded|Query read timeout|not queryable/i;

/** Whether `error` means the database is unavailable rather than the statement wrong. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseError) return UNAVAILABLE_SQLSTATE.test(error.code ?? '');
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return error instanceof Error && DRIVER_MESSAGES.test(error.message);
}

/**
 * Whether `error` ended a transaction that may simply be run again: PostgreSQL chose it to
 * break a deadlock (transactions taking the same rows in different orders, as two batches
 * may), or could not serialize it.
 */
export function isRetriable(error: unknown): boolean {
  return error instanceof DatabaseError && (error.code === '40P01' || error.code === '40001');
}

export function postgresFault(error: unknown): Fault | undefined {
  if (error instanceof DatabaseError) {
    const { code, table = '', constraint = '', detail = '' } = error;
    // query_canceled: statement_timeout stopped it (restock never cancels otherwise).
    if (code === '57014') return { kind: 'timeout' };
    // The identity reached its MAXVALUE (see postgres-tables.ts): nextval wrote nothing.
    if (code === '2200H') return { kind: 'ids-exhausted' };
    // program_limit_exceeded, from a B-tree: "index row size … exceeds … maximum 2704".
    if (code === '54000' && /index row/.test(error.message)) return { kind: 'index-entry-too-large' };
    if (code === '23505') {
      // A taken id (a restore) is the primary key's, no field's.
      if (constraint === `${table}_pkey`) return { kind: 'unique' };
      return { kind: 'unique', violation: { index: constraint, table, definition: detail } };
    }
  }
  // Still ended after the driver ran it again, paused between (./postgres-driver.ts): the client may retry.
  if (isRetriable(error)) {
    return { kind: 'unavailable', message: 'PostgreSQL ended the transaction to break a deadlock with another' };
  }
  if (isUnavailable(error))
    return { kind: 'unavailable', message: `PostgreSQL is unavailable (${(error as Error).message})` };
  return undefined;
}
