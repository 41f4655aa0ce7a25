/**
 * A list query as the client writes it, and its query string: `filter` becomes `field=value`
 * and `field[op]=value` (or, as a string, `?filter=` itself), the rest restock's reserved parameters. What each may name is
 * checked against the record type (./query-types.ts).
 */
import type { ExpandName, FieldName, Filter, Operators, Scalar, SortKey } from './query-types.js';

/** What a read of one record may ask for: only some fields, and referenced records embedded. */
export interface ReadQuery<T = Record<string, unknown>, R = Record<string, string>> {
  /** Only these fields (and `id`). */
  fields?: readonly FieldName<T>[];
  /** Reference fields whose records to embed. */
  expand?: readonly ExpandName<R>[];
}

export interface ListQuery<T = Record<string, unknown>, R = Record<string, string>> extends ReadQuery<T, R> {
  /**
   * By field (dotted for nested ones): a value for equality, or operators; or an expression
   * of restock's filter language, sent as `?filter=`: `"(price > 100 && stock > 0) || category = 'toys'"`.
   * A string's field names are not checked against `T` (a typo there is a `400`); those of
   * an expression built with `where<T>()` (./where.ts) are.
   */
  filter?: Filter<T> | string;
  /** Field names, `-` first for descending: `['-price', 'name']`. */
  sort?: SortKey<T> | readonly SortKey<T>[];
  /** Records per page (restock's default 100, at most 1000). */
  limit?: number;
  /** Text any string field contains. */
  q?: string;
  /** Where the page starts: a page's `cursor`, from its `Link: rel="next"` (the query must be the same). */
  cursor?: string;
  /** Also count every record the query selects (`Prefer: count=exact`): a page's `total`. */
  count?: boolean;
}

/** A query of any record type, as the query string reads it. */
interface AnyQuery {
  filter?: Record<string, Scalar | Operators | undefined> | string;
  sort?: string | readonly string[];
  limit?: number;
  q?: string;
  cursor?: string;
  fields?: readonly string[];
  expand?: readonly string[];
}

export function queryString(query: AnyQuery = {}): string {
  const params = new URLSearchParams();
  if (typeof query.filter === 'string') params.set('filter', query.filter);
  const shorthand = typeof query.filter === 'string' ? {} : (query.filter ?? {});
  for (const [field, condition] of Object.entries(shorthand)) {
    if (condition === undefined) continue;
    if (condition === null || typeof condition !== 'object') {
      params.append(field, text(condition));
      continue;
    }
    for (const [operator, value] of Object.entries(condition)) {
      if (value === undefined) continue;
      const written = Array.isArray(value) ? value.map(text).join(',') : text(value as Scalar);
      params.append(operator === 'eq' ? field : `${field}[${operator}]`, written);
    }
  }
  if (query.sort !== undefined) params.set('sort', typeof query.sort === 'string' ? query.sort : query.sort.join(','));
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  if (query.q !== undefined) params.set('q', query.q);
  if (query.fields !== undefined) params.set('fields', query.fields.join(','));
  if (query.expand !== undefined) params.set('expand', query.expand.join(','));
  if (query.cursor !== undefined) params.set('cursor', query.cursor);
  const written = params.toString();
  return written === '' ? '' : `?${written}`;
}

/** restock reads a filter value as the number, boolean or null it spells, else as text. */
function text(value: Scalar): string {
  return value === null ? 'null' : String(value);
}

/** The `next` target of a `Link` header (RFC 8288), if there is one. */
export function nextLink(header: string | null): string | undefined {
  for (const part of header?.split(',') ?? []) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match && /(^|;)\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/.test(match[2] ?? '')) return match[1];
  }
  return undefined;
}

/** The `cursor` parameter of a next link, which resumes the same query from there. */
export function cursorOf(link: string): string | undefined {
  return new URL(link, 'http://restock.invalid').searchParams.get('cursor') ?? undefined;
}
