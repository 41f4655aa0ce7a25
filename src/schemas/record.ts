/**
 * TypeBox schemas of records and request parts: one definition validates requests and
 * documents the API.
 */
import { type Static, Type } from 'typebox';

/** A stored record: the client's own fields plus the three the server owns. */
export const RecordSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Assigned by the server on create; never reused.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the record was created (UTC).' }),
    updatedAt: Type.String({ format: 'date-time', description: 'When the record last changed (UTC).' }),
  },
  { additionalProperties: true, description: 'Any JSON object; id, createdAt and updatedAt are set by the server.' },
);

export const RecordListSchema = Type.Array(RecordSchema);

/** A create or modify body: any JSON object (checked by the body parser, not here). */
export const RecordBodySchema = Type.Object({}, { additionalProperties: true });

/** The id in an item path. A string here: anything but a positive integer is a 404, not a 400. */
export const IdParamsSchema = Type.Object({ id: Type.String() });
export type IdParams = Static<typeof IdParamsSchema>;

/**
 * The query of a list. Besides the reserved names below, every parameter is a filter,
 * `field=value` or `field[op]=value`, read by src/http/list-query.ts.
 */
export const ListQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Records per page.' }),
    cursor: Type.Optional(Type.String({ description: 'Where the next page starts, from a Link: rel="next".' })),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Records to skip (a cursor is cheaper).' }),
    ),
    sort: Type.Optional(
      Type.String({ description: 'Fields to order by, comma-separated; a leading - sorts descending. Ties: by id.' }),
    ),
    q: Type.Optional(Type.String({ description: 'Text that some string in the record contains, in any case.' })),
    fields: Type.Optional(Type.String({ description: 'Only these fields (comma-separated) besides id.' })),
  },
  {
    additionalProperties: Type.Union([Type.String(), Type.Array(Type.String())], {
      description:
        'A filter: field=value or field[op]=value with op one of eq ne lt lte gt gte in contains startsWith.',
    }),
  },
);
export type ListQuery = Static<typeof ListQuerySchema>;
