/**
 * The query string of a collection read into a store {@link ListQuery}: paging
 * (`limit`, `cursor`, `offset`), order (`sort`), filters (`field=value`,
 * `field[op]=value`), search (`q`) and a projection (`fields`). Anything malformed is a
 * 400 naming the parameter; nothing from the query ever reaches SQL as text.
 */
import { FILTER_OPERATORS, type FilterOperator, OPERATORS } from '../store/filter-operators.js';
import {
  type Condition,
  type FieldRef,
  type FilterOp,
  type JsonScalar,
  type ListQuery,
  MAX_IN_VALUES,
  type SortKey,
} from '../store/store.js';
import { decodeCursor } from './cursor.js';
import { parseFilter } from './list-filter.js';
import { ANY_FIELDS, type QueryFields } from './query-fields.js';
import { fieldRef, idBound, type Names } from './query-terms.js';
import { invalidQuery as invalid } from './refusal.js';

/** The query parameters that are not filters. */
export const RESERVED = ['limit', 'cursor', 'offset', 'sort', 'q', 'fields', 'expand', 'filter'] as const;

const MAX_CONDITIONS = 20;
/** Fields a sort may name, and fields a projection may name: each costs work on every record of a page. */
export const MAX_SORT_KEYS = 4;
export const MAX_FIELDS = 100;
const MAX_TEXT = 1000;

/** A list request, read. */
export interface ParsedList {
  query: ListQuery;
  /** The sort as a canonical string, bound into cursors so that one is not used with another sort. */
  sortKey: string;
  /** Field paths to return (besides id), or undefined for whole records. */
  fields?: string[][];
}

/** The query after schema validation: reserved names typed, the rest strings or lists of them. */
export type RawListQuery = {
  limit: number;
  offset?: number;
  cursor?: string;
  sort?: string;
  q?: string;
  fields?: string;
  expand?: string;
  filter?: string;
} & Record<string, unknown>;

/**
 * Reads a list request's query; `maxFieldNameLength` bounds each name in a path, and
 * `fields` says which names the collection's records may have (./query-fields.ts).
 */
export function parseListQuery(
  raw: RawListQuery,
  maxFieldNameLength: number,
  fields: QueryFields = ANY_FIELDS,
): ParsedList {
  const names: Names = { maxLength: maxFieldNameLength, fields };
  // The route's validator turns "1e400" into Infinity and lets it through its bounds (Ajv
  // checks a coerced number's range only when it is finite).
  if (raw.limit !== undefined && !Number.isSafeInteger(raw.limit)) throw invalid('limit', 'must be an integer');
  if (raw.offset !== undefined && !Number.isSafeInteger(raw.offset)) throw invalid('offset', 'must be an integer');
  if (raw.cursor !== undefined && raw.offset !== undefined) {
    throw invalid('offset', 'cannot be combined with cursor: a cursor already says where the page starts');
  }
  const sort = raw.sort === undefined ? [] : parseSort(raw.sort, names);
  const sortKey = sort.map((key) => `${key.descending ? '-' : ''}${nameOf(key.field)}`).join(',');
  const where: Condition[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if ((RESERVED as readonly string[]).includes(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      where.push(parseCondition(name, String(item), names));
    }
  }
  if (where.length > MAX_CONDITIONS) throw invalid('', `at most ${MAX_CONDITIONS} filters in one request`);
  // `?filter=` is ANDed with the shorthand: what must all hold joins `where`, the rest is a tree.
  const expression = raw.filter === undefined ? undefined : parseFilter(raw.filter, names);
  if (expression) where.push(...expression.where);
  if (raw.q !== undefined && (raw.q === '' || raw.q.length > MAX_TEXT)) {
    throw invalid('q', `must be 1 to ${MAX_TEXT} characters`);
  }
  if (raw.q?.includes('\0')) throw invalid('q', NUL_REFUSED);
  const after = raw.cursor === undefined ? undefined : decodeCursor(raw.cursor, sortKey);
  return {
    // The route's validator fills in limit's default; a caller that skips it gets the same.
    query: {
      where,
      ...(expression?.rule && { rule: expression.rule }),
      sort,
      limit: raw.limit ?? 100,
      offset: raw.offset,
      after,
      search: raw.q,
    },
    sortKey,
    fields: raw.fields === undefined ? undefined : parseFields(raw.fields, names),
  };
}

function parseSort(raw: string, names: Names): SortKey[] {
  const items = raw.split(',').map((item) => item.trim());
  if (items.length > MAX_SORT_KEYS) throw invalid('sort', `at most ${MAX_SORT_KEYS} fields`);
  return items.map((item) => {
    const descending = item.startsWith('-');
    const name = descending ? item.slice(1) : item;
    return { field: fieldRef(name, 'sort', names), descending };
  });
}

function parseFields(raw: string, names: Names): string[][] {
  const items = raw.split(',');
  if (items.length > MAX_FIELDS) throw invalid('fields', `at most ${MAX_FIELDS} fields`);
  return items.map((item) => {
    const field = fieldRef(item.trim(), 'fields', names);
    return typeof field === 'string' ? [field] : [...field.path];
  });
}

/** `name` or `name[op]` with a value. */
function parseCondition(parameter: string, raw: string, names: Names): Condition {
  const match = /^([^[\]]+)(?:\[([^[\]]*)\])?$/.exec(parameter);
  if (!match?.[1]) throw invalid(parameter, 'is not a filter: write field=value or field[op]=value');
  const op = (match[2] ?? 'eq') as FilterOp;
  if (!OPERATORS.includes(op)) {
    throw invalid(parameter, `has an unknown operator "${match[2]}"; use one of ${OPERATORS.join(', ')}`);
  }
  const operator: FilterOperator = FILTER_OPERATORS[op];
  const field = fieldRef(match[1], parameter, names);
  if (raw.length > MAX_TEXT) throw invalid(parameter, `value longer than ${MAX_TEXT} characters`);
  if (raw.includes('\0')) throw invalid(parameter, NUL_REFUSED);
  if (operator.reads === 'list') {
    const items = raw.split(',');
    if (items.length > MAX_IN_VALUES) throw invalid(parameter, `at most ${MAX_IN_VALUES} values`);
    return { field, op, value: items.map((item) => valueFor(field, op, item, parameter)) };
  }
  if (operator.refusesIds && field === 'id') throw invalid(parameter, operator.refusesIds);
  if (operator.reads === 'text') return { field, op, value: raw };
  const value = valueFor(field, op, raw, parameter);
  if (value === null && operator.refusesNull) throw invalid(parameter, operator.refusesNull);
  return { field, op, value };
}

/**
 * A value as the JSON it reads as: a number, true, false or null, a "quoted" JSON string,
 * else the text itself. The system fields take what they hold: id a number, the
 * timestamps text.
 */
function valueFor(field: FieldRef, op: FilterOp, raw: string, parameter: string): JsonScalar {
  if (field === 'createdAt' || field === 'updatedAt') return raw;
  const value = typed(raw);
  if (typeof value === 'string' && /[\0\p{Cs}]/u.test(value)) throw invalid(parameter, NOT_TEXT);
  if (field !== 'id') return value;
  if (typeof value !== 'number') throw invalid(parameter, `must be a number (ids are), not "${raw}"`);
  return idBound(op, value);
}

function typed(raw: string): JsonScalar {
  if (raw === 'null') return null;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(raw)) {
    const number = Number(raw);
    if (Number.isFinite(number)) return number;
  }
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    try {
      const text = JSON.parse(raw) as unknown;
      if (typeof text === 'string') return text;
    } catch {
      // not a JSON string: the text as it is
    }
  }
  return raw;
}

/** Neither store can hold U+0000 in text (PostgreSQL's jsonb and text refuse it), so none is compared with it. */
const NUL_REFUSED = 'holds U+0000, which no record can hold';
/** Nor a lone surrogate (`"\ud800"`), which is no character at all. */
const NOT_TEXT = 'holds U+0000 or a lone surrogate, which no record can hold';

function nameOf(field: FieldRef): string {
  return typeof field === 'string' ? field : field.path.join('.');
}
