/**
 * The SQLite side of the shared list-query builder (see ../sql/dialect.ts): JSON paths as
 * `$."a"."b"`, values through json_type/json_extract, text in SQLite's binary order (code
 * points).
 */
import { FOLD_CASE_FUNCTION } from '../sql/case-fold.js';
import { SEARCH_INDEX_MIN_LENGTH, type SqlDialect, searchIndexName } from '../sql/dialect.js';
import type { SqlAdapter } from '../sql/engine.js';
import { trigramQuery } from './search-index.js';
import { sqliteReadsPastPage } from './sqlite-plan.js';

const RANK_OF_TYPE =
  "WHEN 'integer' THEN 1 WHEN 'real' THEN 1 WHEN 'text' THEN 2 WHEN 'true' THEN 3 WHEN 'false' THEN 3 " +
  "WHEN 'array' THEN 4 WHEN 'object' THEN 5 ELSE 0";

/** Milliseconds since the epoch, as idempotency keys store time. */
const NOW_MS = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

export const sqliteDialect: SqlDialect = {
  // Named, because the same term (and its parameters) appears in SELECT, WHERE and ORDER BY.
  placeholder: (n) => `@p${n}`,
  path(segments, param, literal) {
    const path = `$${segments.map((s) => `."${s}"`).join('')}`;
    return literal ? `'${path}'` : param(path);
  },
  rank: (p) => `(CASE json_type(data, ${p}) ${RANK_OF_TYPE} END)`,
  number: (p) =>
    `(CASE json_type(data, ${p}) WHEN 'integer' THEN json_extract(data, ${p}) ` +
    `WHEN 'real' THEN json_extract(data, ${p}) WHEN 'true' THEN 1 ELSE 0 END)`,
  text: (p) =>
    `(CASE json_type(data, ${p}) WHEN 'text' THEN json_extract(data, ${p}) ` +
    `WHEN 'array' THEN json_extract(data, ${p}) WHEN 'object' THEN json_extract(data, ${p}) ELSE '' END)`,
  uniqueTerms: (p, ignoreCase) => [
    `json_type(data, ${p})`,
    ignoreCase
      ? `(CASE json_type(data, ${p}) WHEN 'text' THEN lower(json_extract(data, ${p})) ELSE json_extract(data, ${p}) END)`
      : `json_extract(data, ${p})`,
  ],
  // The index's SQL as created: json_type(data, '$."meta"."code"'), …
  uniquePath(definition) {
    const path = /'\$((?:\."[^"]*")+)'/.exec(definition)?.[1];
    return path === undefined ? undefined : [...path.matchAll(/"([^"]*)"/g)].map((match) => match[1] as string);
  },
  byteLength: (text) => `length(CAST(${text} AS BLOB))`,
  idList: () => "group_concat(id, ',' ORDER BY id)",
  containsText: (haystack, needle) => `(instr(${haystack}, ${needle}) > 0)`,
  arrayHas(path, value, param) {
    const element =
      value === null
        ? "type = 'null'"
        : typeof value === 'boolean'
          ? `type = '${value}'`
          : typeof value === 'number'
            ? `type IN ('integer', 'real') AND atom = ${param(value)}`
            : `type = 'text' AND atom = ${param(value)}`;
    return `(json_type(data, ${path}) = 'array' AND EXISTS (SELECT 1 FROM json_each(data, ${path}) WHERE ${element}))`;
  },
  search(table, needle, param, indexed = true) {
    // SQLite's own lower() folds ASCII only; the function the connection registers folds as PostgreSQL does.
    const scan = `EXISTS (SELECT 1 FROM json_tree(data) WHERE type = 'text' AND instr(${FOLD_CASE_FUNCTION}(atom), ${param(needle)}) > 0)`;
    if (!indexed || [...needle].length < SEARCH_INDEX_MIN_LENGTH) return scan;
    // The index finds the records holding the needle's trigrams (see trigramQuery);
    // the scan then checks only those, each string on its own.
    const index = `"${searchIndexName(table)}"`;
    return `(id IN (SELECT rowid FROM ${index} WHERE ${index} MATCH ${param(trigramQuery(needle))}) AND ${scan})`;
  },
  columns: { id: 'id', createdAt: 'created_at', updatedAt: 'updated_at' },
  dataText: 'data',
  json: (param, compact) => (compact ? `json(${param})` : param),
  // The application's clock: SQLite is in the same process.
  now: (param) => param('now'),
  inList: (column, param) => `${column} IN (SELECT value FROM json_each(${param}))`,
  intList: (values) => JSON.stringify(values),
  // A write transaction holds the database's one write lock (BEGIN IMMEDIATE) from its start.
  forUpdate: '',
  forChange: '',
  lookupJoin: (table, alias, on) => `JOIN ${table} ${alias} ON ${on}`,
  forKeyShare: '',
  skipLocked: '',
  // AUTOINCREMENT moves past an explicit id by itself.
  explicitIds: '',
  keyClock: { now: NOW_MS, ago: (ms) => `(${NOW_MS} - ${ms})` },
};

export const sqliteAdapter: SqlAdapter = {
  // SQLite seeks an index with a row value on plain columns only, not on a JSON field's expressions.
  seeksRowValues: false,
  // better-sqlite3 hands rows over one at a time: the read stops at the page's byte budget.
  stopsAtBytes: true,
  readsPastPage: sqliteReadsPastPage,
};
