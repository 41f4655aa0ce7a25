/**
 * The terms a list query is written in, for any {@link SqlDialect}: the expressions each
 * field is compared by, the WHERE of its filters and search, the ORDER BY of its sort, and
 * the keyset condition that continues after a position. Every value goes in as a
 * parameter; field paths too, unless they are indexed fields (from configuration), which
 * are written literally so that the database matches them with their index.
 */
import type { Condition, FieldRef, JsonScalar, ListQuery, Position, RuleFilter, SortKey } from '../store.js';
import { foldCase } from './case-fold.js';
import { RANK, type SqlDialect } from './dialect.js';

/** Whether a path (joined with dots) is one of the collection's indexed fields. */
export type IsIndexed = (path: readonly string[]) => boolean;

/** An expression a field is compared by, and the kind of value it gives. */
interface Term {
  sql: string;
  kind: 'integer' | 'number' | 'string';
}

/** A term of an ORDER BY. */
export interface OrderTerm extends Term {
  descending: boolean;
}

/** Builds SQL for one query, collecting its parameters. */
export class Builder {
  readonly values: unknown[] = [];

  constructor(
    readonly dialect: SqlDialect,
    readonly isIndexed: IsIndexed,
  ) {}

  param = (value: unknown): string => {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length);
  };

  /** The expressions a field is compared and sorted by, most significant first. */
  terms(field: FieldRef): Term[] {
    if (field === 'id') return [{ sql: this.dialect.columns.id, kind: 'integer' }];
    if (typeof field === 'string') return [{ sql: this.dialect.columns[field], kind: 'string' }];
    const path = this.path(field.path);
    return [
      { sql: this.dialect.rank(path), kind: 'integer' },
      { sql: this.dialect.number(path), kind: 'number' },
      { sql: this.dialect.text(path), kind: 'string' },
    ];
  }

  /** The SQL of a data field's rank, number and text. */
  valueTerms(field: { readonly path: readonly string[] }): [string, string, string] {
    const [rank, number, text] = this.terms(field).map((term) => term.sql);
    return [rank as string, number as string, text as string];
  }

  path(segments: readonly string[]): string {
    return this.dialect.path(segments, this.param, this.isIndexed(segments));
  }

  /** The SQL of all conditions, the rule and the search of a query on `table`, to be joined with AND. */
  where(query: Pick<ListQuery, 'where' | 'search' | 'rule'>, table: string): string[] {
    const parts = query.where.map((condition) => this.condition(condition));
    if (query.rule !== undefined) parts.push(this.rule(query.rule));
    if (query.search !== undefined) parts.push(this.dialect.search(table, foldCase(query.search), this.param));
    return parts;
  }

  /** A rule's tree of conditions; its depth is the rule's, which its parser bounds. */
  rule(filter: RuleFilter): string {
    const all = (items: readonly RuleFilter[], join: string) => `(${items.map((item) => this.rule(item)).join(join)})`;
    if ('and' in filter) return filter.and.length === 0 ? '(1 = 1)' : all(filter.and, ' AND ');
    if ('or' in filter) return filter.or.length === 0 ? '(1 = 0)' : all(filter.or, ' OR ');
    // A missing field makes some terms NULL (an array's elements, under `contains`), and NOT
    // NULL is NULL: IS NOT TRUE makes not-matching a match, as the rule means.
    if ('not' in filter) return `(${this.rule(filter.not)} IS NOT TRUE)`;
    return this.condition(filter);
  }

  condition({ field, op, value }: Condition): string {
    if (op === 'in') {
      const items = value as readonly JsonScalar[];
      return `(${items.map((item) => this.equals(field, item)).join(' OR ')})`;
    }
    const scalar = value as JsonScalar;
    switch (op) {
      case 'eq':
        return this.equals(field, scalar);
      case 'ne':
        return `NOT ${this.equals(field, scalar)}`;
      case 'lt':
      case 'lte':
      case 'gt':
      case 'gte':
        return this.compare(field, COMPARISON[op], scalar);
      case 'contains':
        return this.contains(field, scalar);
      case 'startsWith':
        return this.startsWith(field, String(scalar));
    }
  }

  /** Equality of a field with a typed value: same JSON type, same value. */
  equals(field: FieldRef, value: JsonScalar): string {
    if (typeof field === 'string') return `(${this.dialect.columns[field]} = ${this.param(value)})`;
    const [rank, number, text] = this.valueTerms(field);
    const typed = typedTerms(value);
    return `(${rank} = ${typed.rank} AND ${number} = ${this.param(typed.number)} AND ${text} = ${this.param(typed.text)})`;
  }

  compare(field: FieldRef, operator: string, value: JsonScalar): string {
    if (typeof field === 'string') return `(${this.dialect.columns[field]} ${operator} ${this.param(value)})`;
    const [rank, number, text] = this.valueTerms(field);
    const typed = typedTerms(value);
    if (typeof value === 'string') {
      return `(${rank} = ${typed.rank} AND ${number} = 0 AND ${text} ${operator} ${this.param(typed.text)})`;
    }
    return `(${rank} = ${typed.rank} AND ${number} ${operator} ${this.param(typed.number)})`;
  }

  /** A string containing the value's text, or an array holding the value itself. */
  contains(field: FieldRef, value: JsonScalar): string {
    const needle = typeof value === 'string' ? value : JSON.stringify(value);
    if (typeof field === 'string') {
      return this.dialect.containsText(this.dialect.columns[field], this.param(needle));
    }
    const [rank, , text] = this.valueTerms(field);
    const asText = `(${rank} = ${RANK.string} AND ${this.dialect.containsText(text, this.param(needle))})`;
    const asElement = this.dialect.arrayHas(this.path(field.path), value, this.param);
    return `(${asText} OR ${asElement})`;
  }

  startsWith(field: FieldRef, prefix: string): string {
    const length = [...prefix].length;
    const column = typeof field === 'string' ? this.dialect.columns[field] : undefined;
    const [rank, number, text] = column ? [undefined, undefined, column] : this.valueTerms(field as { path: string[] });
    const typeCheck = rank ? `${rank} = ${RANK.string} AND ${number} = 0 AND ` : '';
    // The range lets an index narrow the scan to the prefix; the substring comparison is the exact test.
    const below = successor(prefix);
    const upper = below === undefined ? '' : ` AND ${text} < ${this.param(below)}`;
    return `(${typeCheck}${text} >= ${this.param(prefix)}${upper} AND substr(${text}, 1, ${this.param(length)}) = ${this.param(prefix)})`;
  }

  /**
   * The ORDER BY terms with their directions: the sort keys, then id. A term a filter pins to
   * one value (`price[gte]=5` pins price's rank) orders nothing and is left out: SQLite would not
   * use an index naming it, and PostgreSQL cannot type the parameter of a path no term names.
   */
  orderTerms(sort: readonly SortKey[], where: readonly Condition[]): OrderTerm[] {
    const terms: OrderTerm[] = [];
    for (const key of sort) {
      const pinned = typeof key.field === 'string' ? 0 : pinnedTerms(key.field.path, where);
      if (pinned === 0b111) continue;
      const all = this.terms(key.field).map((term) => ({ ...term, descending: key.descending }));
      terms.push(...all.filter((_, i) => !(pinned & (1 << i))));
    }
    const last = sort[sort.length - 1];
    terms.push({ sql: this.dialect.columns.id, kind: 'integer', descending: last?.descending ?? false });
    return terms;
  }

  /** Records strictly after `position` in the order of `terms`. */
  after(rest: readonly OrderTerm[], values: Position): string {
    if (rest.every((term) => term.descending === rest[0]?.descending)) {
      const operator = rest[0]?.descending ? '<' : '>';
      return `((${rest.map((t) => t.sql).join(', ')}) ${operator} (${values.map((v) => this.param(v)).join(', ')}))`;
    }
    // Mixed directions: t0 beyond v0, or equal and the rest beyond, and so on.
    let sql = '';
    for (let i = rest.length - 1; i >= 0; i--) {
      const term = rest[i] as OrderTerm;
      const beyond = `${term.sql} ${term.descending ? '<' : '>'} ${this.param(values[i])}`;
      sql = sql === '' ? beyond : `(${beyond} OR (${term.sql} = ${this.param(values[i])} AND ${sql}))`;
    }
    return `(${sql})`;
  }

  /** The ORDER BY clause of `terms`. */
  orderBy(terms: readonly OrderTerm[]): string {
    return terms.map((term) => `${term.sql}${term.descending ? ' DESC' : ''}`).join(', ');
  }
}

/**
 * Which of a path's three terms (bit 0 rank, 1 number, 2 text) the conditions pin to a
 * single value, because every comparison is typed.
 */
function pinnedTerms(path: readonly string[], where: readonly Condition[]): number {
  let pinned = 0;
  for (const { field, op, value } of where) {
    if (typeof field === 'string' || field.path.join('.') !== path.join('.')) continue;
    if (op === 'eq') pinned |= 0b111;
    else if (op === 'startsWith' || (RANGE_OPS.has(op) && typeof value === 'string')) pinned |= 0b011;
    else if (RANGE_OPS.has(op)) pinned |= 0b001;
  }
  return pinned;
}

const RANGE_OPS = new Set(['lt', 'lte', 'gt', 'gte']);

const COMPARISON = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** The rank, number and text a JSON value has in the comparison expressions. */
function typedTerms(value: JsonScalar): { rank: number; number: number; text: string } {
  if (value === null) return { rank: RANK.null, number: 0, text: '' };
  if (typeof value === 'number') return { rank: RANK.number, number: value, text: '' };
  if (typeof value === 'boolean') return { rank: RANK.boolean, number: value ? 1 : 0, text: '' };
  return { rank: RANK.string, number: 0, text: value };
}

/**
 * The first string in code-point order (the order both stores compare text in) after every
 * string that starts with `prefix`: its last code point raised by one, or undefined when
 * no string follows them all (an empty prefix, or one of nothing but U+10FFFF).
 */
export function successor(prefix: string): string | undefined {
  const points = [...prefix].map((char) => char.codePointAt(0) as number);
  while (points.length > 0) {
    const last = (points.pop() as number) + 1;
    if (last > 0x10ffff) continue;
    // Surrogates are not characters: after U+D7FF comes U+E000.
    points.push(last >= 0xd800 && last <= 0xdfff ? 0xe000 : last);
    return String.fromCodePoint(...points);
  }
  return undefined;
}
