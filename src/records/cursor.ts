/**
 * Opaque page cursors: base64url of a small JSON object holding where the last page ended
 * (a store {@link Position}) and the sort it was made for, so that what a cursor holds can
 * change without clients noticing, and a cursor is never read against another order.
 */
import type { Position } from '../store/store.js';
import { invalidQuery } from './refusal.js';

interface CursorContent {
  /** The position of the last record of the previous page. */
  p: Position;
  /** The sort the position belongs to. */
  s: string;
}

export function encodeCursor(position: Position, sortKey: string): string {
  const content: CursorContent = { p: position, s: sortKey };
  return Buffer.from(JSON.stringify(content)).toString('base64url');
}

/** Reads a cursor back; one this server did not make, or made for another sort, is a 400. */
export function decodeCursor(cursor: string, sortKey: string): Position {
  let content: Partial<CursorContent> | undefined;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorContent>;
  } catch {
    // reported below
  }
  const p = content?.p;
  const valid =
    Array.isArray(p) &&
    p.length > 0 &&
    p.length <= 64 &&
    p.every((v) => (typeof v === 'string' && !v.includes('\0')) || (typeof v === 'number' && Number.isFinite(v)));
  if (!valid) throw invalidQuery('cursor', 'is not a cursor this server handed out');
  if (content?.s !== sortKey)
    throw invalidQuery('cursor', 'was made for another sort; keep sort as it was, or start over');
  return p as Position;
}
