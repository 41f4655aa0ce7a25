/**
 * The PostgreSQL side of the shared list-query builder (see ../sql/dialect.ts): paths as
 * text arrays for `#>`, values through jsonb_typeof, text compared with COLLATE "C" so
 * that strings order by code point exactly as on SQLite, whatever the database's locale.
 */
import type { SqlDialect } from '../sql/dialect.js';

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
  idList: () => "string_agg(id::text, ',' ORDER BY id)",
  containsText: (haystack, needle) => `(strpos(${haystack}, ${needle}::text) > 0)`,
  arrayHas: (path, value, param) =>
    `(${typeOf(path)} = 'array' AND (data #> ${path}) @> jsonb_build_array(${param(JSON.stringify(value))}::jsonb))`,
  search: (needle) =>
    `EXISTS (SELECT 1 FROM jsonb_path_query(data, 'strict $.**') AS v ` +
    `WHERE jsonb_typeof(v) = 'string' AND strpos(lower(v #>> '{}'), lower(${needle}::text)) > 0)`,
  seeksRowValues: true,
  columns: { id: 'id', createdAt: 'created_at', updatedAt: 'updated_at' },
};
