/**
 * The PostgreSQL side of the shared list-query builder (see ../sql/dialect.ts): paths as
 * text arrays for `#>`, values through jsonb_typeof, text compared with COLLATE "C" so
 * that strings order by code point exactly as on SQLite, whatever the database's locale;
 * search folds case through ICU (or a table), not the locale either.
 */
import { type foldCase, foldTable } from '../sql/case-fold.js';
import { SEARCH_INDEX_MIN_LENGTH, type SqlDialect } from '../sql/dialect.js';
import type { SqlAdapter } from '../sql/engine.js';
import { postgresReadsPastPage } from './postgres-plan.js';
import { SEARCH_TEXT_FUNCTION } from './postgres-tables.js';

const typeOf = (p: string) => `jsonb_typeof(data #> ${p})`;

export const postgresDialect: SqlDialect = {
  placeholder: (n) => `$${n}`,
  path(segments, param, literal) {
    // Literal paths are indexed fields, which configuration limits to plain identifiers.
    return literal ? `'{${segments.join(',')}}'` : `${param(segments)}::text[]`;
  },
  rank: (p) =>
    `(CASE ${typeOf(p)} WHEN 'number' THEN 1 WHEN 'string' THEN 2 WHEN 'boolean' THEN 3 ` +
    `WHEN 'array' THEN 4 WHEN 'object' THEN 5 ELSE 0 END)`,
  number: (p) =>
    `(CASE ${typeOf(p)} WHEN 'number' THEN (data #>> ${p})::float8 ` +
    `WHEN 'boolean' THEN CASE WHEN data #>> ${p} = 'true' THEN 1::float8 ELSE 0::float8 END ELSE 0::float8 END)`,
  text: (p) => `(CASE WHEN ${typeOf(p)} IN ('string', 'array', 'object') THEN data #>> ${p} ELSE '' END COLLATE "C")`,
  // COLLATE "C": lower() then folds ASCII letters only, exactly as SQLite's does.
  uniqueTerms: (p, ignoreCase) => [
    typeOf(p),
    ignoreCase
      ? `(CASE ${typeOf(p)} WHEN 'string' THEN lower((data #>> ${p}) COLLATE "C") ELSE data #>> ${p} END)`
      : `(data #>> ${p})`,
  ],
  // An index definition or a violation's detail: jsonb_typeof(data #> '{meta,code}'::text[]), …
  uniquePath: (definition) => /#>>? '\{([^}]*)\}'/.exec(definition)?.[1]?.split(','),
  byteLength: (text) => `octet_length(${text})`,
  idList: () => "string_agg(id::text, ',' ORDER BY id)",
  containsText: (haystack, needle) => `(strpos(${haystack}, ${needle}::text) > 0)`,
  arrayHas: (path, value, param) =>
    `(${typeOf(path)} = 'array' AND (data #> ${path}) @> jsonb_build_array(${param(JSON.stringify(value))}::jsonb))`,
  search: searchWith(foldWithIcu),
  columns: { id: 'id', createdAt: 'created_at', updatedAt: 'updated_at' },
  dataText: 'data::text',
  // jsonb keeps its own form, whatever the text's blanks.
  json: (param) => `${param}::jsonb`,
  // The database's clock, one for every instance (restock_now: see postgres-tables.ts).
  now: () => 'restock_now()',
  inList: (column, param) => `${column} = ANY(${param}::bigint[])`,
  intList: (values) => values,
  forUpdate: ' FOR UPDATE',
  forChange: ' FOR NO KEY UPDATE',
  // OFFSET 0 keeps the planner from merging the subquery back into a join it may hash.
  lookupJoin: (table, alias, on) =>
    `CROSS JOIN LATERAL (SELECT * FROM ${table} ${alias} WHERE ${on} OFFSET 0) ${alias}`,
  forKeyShare: ' FOR KEY SHARE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  explicitIds: 'OVERRIDING SYSTEM VALUE',
  afterExplicitIds: (table) =>
    `SELECT setval(seq, top) FROM (
       SELECT pg_get_serial_sequence('"${table}"', 'id')::regclass AS seq, (SELECT max(id) FROM "${table}") AS top
     ) identity WHERE top > COALESCE(pg_sequence_last_value(seq), 0)`,
  keyClock: { now: 'now()', ago: (ms) => `(now() - ${ms} * interval '1 millisecond')` },
};

/** The ICU collation whose lower() follows Unicode's root rules, as JavaScript's does. */
export const postgresAdapter: SqlAdapter = {
  seeksRowValues: true,
  // A pooled query hands over every row at once: the page's SQL stops at the budget.
  stopsAtBytes: false,
  // Its plan says what an index leaves to a filter: the walk needs no other answer.
  readsPastPage: (plan) => postgresReadsPastPage(plan),
};

export const ICU_ROOT_COLLATION = 'und-x-icu';

/**
 * The dialect for a server with or without ICU. Without, search folds through a table of
 * code points: the same results, more slowly for text beyond ASCII.
 */
export function postgresDialectFor(hasIcu: boolean): SqlDialect {
  return hasIcu ? postgresDialect : { ...postgresDialect, search: searchWith(foldWithTable) };
}

/**
 * Search in every string of the record, folded by `fold`, for the (folded) needle. From
 * three characters on, a LIKE on the record's search text (postgres-tables.ts) lets the
 * trigram index find the candidates, which the scan then checks each string by string.
 */
function searchWith(fold: (text: string) => string): SqlDialect['search'] {
  return (_table, needle, param, indexed = true) => {
    const scan =
      `EXISTS (SELECT 1 FROM jsonb_path_query(data, 'strict $.**') AS v ` +
      `WHERE jsonb_typeof(v) = 'string' AND strpos(${fold("(v #>> '{}')")}, ${param(needle)}::text) > 0)`;
    if (!indexed || [...needle].length < SEARCH_INDEX_MIN_LENGTH) return scan;
    const pattern = `%${needle.replace(/[\\%_]/g, '\\$&')}%`;
    return `(${SEARCH_TEXT_FUNCTION}(data) LIKE ${param(pattern)} AND ${scan})`;
  };
}

/** {@link foldCase} as SQL on a server with ICU or without, for the search text function. */
export function foldSqlFor(hasIcu: boolean): (text: string) => string {
  return hasIcu ? foldWithIcu : foldWithTable;
}

/** {@link foldCase} as SQL: the database's locale plays no part. */
function foldWithIcu(text: string): string {
  return `translate(lower(${text} COLLATE "${ICU_ROOT_COLLATION}"), 'ς', 'σ')`;
}

/**
 * {@link foldCase} as SQL without ICU. translate() looks each character up in a list of
 * some 1,500, so ASCII text, the common case, takes the quick lower() of the C collation.
 */
function foldWithTable(text: string): string {
  const { from, to, multiple } = foldTable();
  const replaced = multiple.reduce((sql, [char, folded]) => `replace(${sql}, ${quote(char)}, ${quote(folded)})`, text);
  return (
    `(CASE WHEN octet_length(${text}) = length(${text}) THEN lower(${text} COLLATE "C") ` +
    `ELSE translate(${replaced}, ${quote(from)}, ${quote(to)}) END)`
  );
}

/** A SQL string literal (standard_conforming_strings, on since PostgreSQL 9.1). */
function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
