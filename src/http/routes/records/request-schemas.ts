/**
 * The schemas Fastify validates a record route's request parts with (and documents): the
 * id of an item path and the query of a list.
 */
import { type Static, Type } from 'typebox';
import { MAX_FIELDS, MAX_SORT_KEYS } from './list-query.js';

/** The id in an item path. A string here: anything but a positive integer is a 404, not a 400. */
export const IdParamsSchema = Type.Object({
  id: Type.String({ description: 'The record id, a positive integer.', examples: ['1'] }),
});
export type IdParams = Static<typeof IdParamsSchema>;

/**
 * The query of a list. Besides the reserved names below, every parameter is a filter,
 * `field=value` or `field[op]=value`, read by ./list-query.ts.
 */
export const ListQuerySchema = Type.Object(
  {
    // Optional, with its default (applied by the validator): a client need not send it.
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Records per page.' })),
    cursor: Type.Optional(Type.String({ description: 'Where the next page starts, from a Link: rel="next".' })),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Records to skip (a cursor is cheaper).' }),
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
  },
  {
    additionalProperties: Type.Union([Type.String(), Type.Array(Type.String())], {
      description:
        'A filter: field=value or field[op]=value with op one of eq ne lt lte gt gte in contains startsWith.',
    }),
  },
);
export type ListQuery = Static<typeof ListQuerySchema>;
