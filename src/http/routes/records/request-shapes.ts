/**
 * The shapes Fastify validates a record route's request parts with (and documents): the
 * id of an item path and the query of a list.
 */
import { type Static, Type } from 'typebox';
import { MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, MAX_FILTER_TERMS } from '../../../records/list-filter.js';
import { MAX_FIELDS, MAX_SORT_KEYS } from '../../../records/list-query.js';

/** The id in an item path. A string here: anything but a positive integer is a 404, not a 400. */
export const IdParamsShape = Type.Object({
  id: Type.String({ description: 'The record id, a positive integer.', examples: ['1'] }),
});
export type IdParams = Static<typeof IdParamsShape>;

/** References whose records to embed, under `expand` (src/records/expand.ts): `names` are the collection's own. */
function expandShape(names: readonly string[]) {
  const which =
    names.length === 0
      ? 'This collection has no references.'
      : `Its references: ${names.join(', ')}; a reference of the embedded record follows after a dot, two deep at most.`;
  return Type.String({
    description: `References whose records to embed in each record, under "expand", comma-separated. ${which}`,
  });
}

/** `?filter=`, an expression of the rule language (src/records/list-filter.ts). */
const FilterShape = Type.String({
  description:
    "An expression over the record's fields: comparisons (== or =, !=, <, <=, >, >=, in [..]) of a field with " +
    'a value (a number, \'text\' or "text", true, false, null), joined by && and ||, negated by !, grouped by ' +
    `parentheses, as in (price > 100 && stock > 0) || category = 'toys'. At most ${MAX_FILTER_LENGTH} characters, ` +
    `${MAX_FILTER_DEPTH} levels of nesting and ${MAX_FILTER_TERMS} comparisons; ANDed with the other filters.`,
});

/** The query of one record's read, for a collection whose references are `names`. */
export function readQueryShape(names: readonly string[]) {
  return Type.Object({ expand: Type.Optional(expandShape(names)) });
}
export type ReadQuery = { expand?: string };

/**
 * The query of a list. Besides the reserved names below, every parameter is a filter,
 * `field=value` or `field[op]=value`, read by src/records/list-query.ts.
 */
export function listQueryShape(names: readonly string[]) {
  return Type.Object(
    {
      // Optional, with its default (applied by the validator): a client need not send it.
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Records per page.' })),
      cursor: Type.Optional(Type.String({ description: 'Where the next page starts, from a Link: rel="next".' })),
      offset: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 1_000_000,
          description:
            'Records to skip (a cursor is cheaper). Not with cursor, which already says where the page starts: 400.',
        }),
      ),
      sort: Type.Optional(
        Type.String({
          description: `At most ${MAX_SORT_KEYS} fields to order by, comma-separated; a leading - sorts descending. Ties: by id.`,
        }),
      ),
      q: Type.Optional(Type.String({ description: 'Text that some string in the record contains, in any case.' })),
      fields: Type.Optional(
        Type.String({ description: `Only these fields (at most ${MAX_FIELDS}, comma-separated) besides id.` }),
      ),
      expand: Type.Optional(expandShape(names)),
      filter: Type.Optional(FilterShape),
    },
    {
      additionalProperties: Type.Union([Type.String(), Type.Array(Type.String())], {
        description:
          'A filter: field=value or field[op]=value with op one of eq ne lt lte gt gte in contains startsWith.',
      }),
    },
  );
}

/** The query of a change feed: where to resume, and the list's filters. */
export const EventsQueryShape = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        description: 'Resume after the change with this id (as Last-Event-ID does); without, the next change.',
      }),
    ),
    filter: Type.Optional(FilterShape),
    access_token: Type.Optional(
      Type.String({
        description: "The API key, for clients that cannot send Authorization (a browser's EventSource).",
      }),
    ),
  },
  {
    additionalProperties: Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'A filter, as on the list: only changes whose record matches it are sent.',
    }),
  },
);
