/**
 * Which PostgreSQL failures mean "the database is not there right now" (the client may
 * retry: 503) rather than "this statement is wrong" (a bug: 500).
 */
import { DatabaseError } from 'pg';
import { StatementTimeoutError, StoreUnavailableError } from '../store.js';

/**
 * SQLSTATE classes and codes of an unreachable, restarting or overloaded server:
 * connection exceptions (08), insufficient resources (53), operator intervention (57:
 * shutdown, crash, statement timeout) and "too many connections".
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-4]|57014|58)/;

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

/** Runs a database call, turning unavailability into {@link StoreUnavailableError}. */
export async function guard<T>(run: () => Promise<T>, statementTimeoutMs = 0): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // query_canceled: statement_timeout stopped it (restock never cancels otherwise).
    if (error instanceof DatabaseError && error.code === '57014') {
      throw new StatementTimeoutError(statementTimeoutMs, { cause: error });
    }
    if (isUnavailable(error)) {
      throw new StoreUnavailableError(`PostgreSQL is unavailable (${(error as Error).message})`, { cause: error });
    }
    throw error;
  }
}
