/**
 * Opaque page cursors: base64url of a small JSON object, so that what a cursor holds can
 * grow without clients noticing.
 */
import { HttpProblem } from './problem.js';

export interface CursorPosition {
  /** The id of the last record on the previous page. */
  id: number;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** Reads a cursor back; a cursor this server did not make is a 400 naming the parameter. */
export function decodeCursor(cursor: string): CursorPosition {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorPosition>;
    if (typeof value.id === 'number' && Number.isSafeInteger(value.id) && value.id >= 0) return { id: value.id };
  } catch {
    // fall through to the problem below
  }
  throw new HttpProblem('invalid-query', 'The query parameter cursor is not one this server handed out.', {
    errors: [{ pointer: '/cursor', message: 'is not a valid cursor' }],
  });
}
