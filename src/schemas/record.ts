/**
 * TypeBox schemas of records and request parts: one definition validates requests and
 * documents the API. A collection's record schemas are derived from its resource
 * definition, so a schema declared there shows in its bodies and responses.
 */
import { type Static, type TSchema, Type } from 'typebox';
import type { ResourceDefinition } from '../resources.js';

/** The fields the server owns, in the order responses put them around the client's. */
const ID = Type.Integer({ minimum: 1, description: 'Assigned by the server on create; never reused.' });
const CREATED_AT = Type.String({ format: 'date-time', description: 'When the record was created (UTC).' });
const UPDATED_AT = Type.String({ format: 'date-time', description: 'When the record last changed (UTC).' });
const SYSTEM_REQUIRED = ['id', 'createdAt', 'updatedAt'];

/** The client's fields of a collection that declares no schema: any JSON object. */
const ANY_FIELDS_DESCRIPTION = 'Any JSON object; id, createdAt and updatedAt are ignored.';
export const AnyFieldsSchema = Type.Object({}, { additionalProperties: true, description: ANY_FIELDS_DESCRIPTION });

/** A JSON Schema as plain data, for reading the parts of a declared schema. */
interface JsonSchema {
  [keyword: string]: unknown;
  properties?: Record<string, unknown>;
  required?: string[];
  description?: string;
}

/** The schemas of one collection, each with the `$id` it is documented under. */
export interface RecordSchemas {
  /** A create body (`UserFields`): the client's fields. */
  fields: TSchema & { $id: string };
  /** A modify body (`UserPatch`): a JSON Merge Patch of those fields. */
  patch: TSchema & { $id: string };
  /** A record as served (`User`): the client's fields with the server's. */
  record: TSchema & { $id: string };
}

/** Derives the named schemas of `resource` from its declared `schema` (default: any object). */
export function recordSchemas(resource: ResourceDefinition): RecordSchemas {
  const name = `${resource.singular.charAt(0).toUpperCase()}${resource.singular.slice(1)}`;
  const fields = (resource.schema ?? AnyFieldsSchema) as JsonSchema;
  const example = resource.example;
  const at = '2025-01-01T12:00:00.000Z';
  const examples = (value: object | undefined) => (value ? { examples: [value] } : {});
  return {
    fields: { ...fields, ...examples(example), $id: `${name}Fields` },
    patch: { ...mergePatchOf(fields), ...examples(example), $id: `${name}Patch` },
    record: {
      ...withSystemFields(fields),
      ...examples(example && { id: 1, ...example, createdAt: at, updatedAt: at }),
      $id: name,
    },
  };
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' && !schema.allOf && !schema.anyOf && !schema.oneOf;
}

/** A record: an object schema gains the system properties in response order, else an allOf. */
function withSystemFields(fields: JsonSchema): JsonSchema {
  if (!isObjectSchema(fields)) {
    return {
      allOf: [Type.Object({ id: ID, createdAt: CREATED_AT, updatedAt: UPDATED_AT }), fields],
      description: fields.description,
    };
  }
  return {
    ...fields,
    description: fields.description === ANY_FIELDS_DESCRIPTION ? RECORD_DESCRIPTION : fields.description,
    properties: { id: ID, ...fields.properties, createdAt: CREATED_AT, updatedAt: UPDATED_AT },
    required: [...new Set([...SYSTEM_REQUIRED, ...(fields.required ?? [])])],
  };
}

const RECORD_DESCRIPTION = 'Any JSON object; id, createdAt and updatedAt are set by the server.';

/**
 * What a JSON Merge Patch (RFC 7396) of `schema` may hold: every field optional, at every
 * depth, and each may be `null` (which removes it).
 */
function mergePatchOf(schema: JsonSchema): JsonSchema {
  if (!isObjectSchema(schema)) return { ...AnyFieldsSchema, description: PATCH_DESCRIPTION };
  const { required: _required, ...rest } = schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([key, property]) => [
      key,
      {
        anyOf: [
          isObjectSchema(property as JsonSchema) ? mergePatchOf(property as JsonSchema) : property,
          { type: 'null' },
        ],
      },
    ]),
  );
  return { ...rest, properties, description: PATCH_DESCRIPTION };
}

const PATCH_DESCRIPTION =
  'The changes, as a JSON Merge Patch: present fields replace, null removes, absent fields stay, nested objects merge.';

/** The id in an item path. A string here: anything but a positive integer is a 404, not a 400. */
export const IdParamsSchema = Type.Object({
  id: Type.String({ description: 'The record id, a positive integer.', examples: ['1'] }),
});
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
