/**
 * A list query as the client writes it, and its query string: `filter` becomes `field=value`
 * and `field[op]=value`, the rest restock's reserved parameters.
 */
export type Scalar = string | number | boolean | null;

export interface Operators {
  eq?: Scalar;
  ne?: Scalar;
  lt?: Scalar;
  lte?: Scalar;
  gt?: Scalar;
  gte?: Scalar;
  in?: readonly Scalar[];
  contains?: string;
  startsWith?: string;
}

export interface ListQuery {
  /** By field (dotted for nested ones): a value for equality, or operators. */
  filter?: Record<string, Scalar | Operators>;
  /** Field names, `-` first for descending: `['-price', 'name']`. */
  sort?: string | readonly string[];
  /** Records per page (restock's default 100, at most 1000). */
  limit?: number;
  /** Text any string field contains. */
  q?: string;
  /** Only these fields (and `id`). */
  fields?: readonly string[];
  /** Reference fields whose records to embed. */
  expand?: readonly string[];
}

export function queryString(query: ListQuery = {}): string {
  const params = new URLSearchParams();
  for (const [field, condition] of Object.entries(query.filter ?? {})) {
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
