/**
 * The documented components of each collection's records, derived from the schema the
 * collection validates with (the operator's, from SCHEMAS; without one, any JSON object).
 */
import { Type } from 'typebox';
import { type Collection, SYSTEM_FIELDS } from '../../core/collection.js';
import { withFileSchemas } from '../../core/file-fields.js';
import { PASSWORD_FIELD, passwordSchemaOf, withoutPassword } from '../../records/accounts/index.js';
import { type JsonSchema, withFilePatches } from './upload-bodies.js';

/** The fields the server owns, in the order responses put them around the client's. */
const ID = Type.Integer({ minimum: 1, description: 'Assigned by the server on create; never reused.' });
const CREATED_AT = Type.String({ format: 'date-time', description: 'When the record was created (UTC).' });
const UPDATED_AT = Type.String({ format: 'date-time', description: 'When the record last changed (UTC).' });

/** The client's fields of a collection without a schema: any JSON object. */
const ANY_FIELDS: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: 'Any JSON object; id, createdAt and updatedAt are set by the server and ignored when sent.',
};

/** The names a collection's record components are documented under, in `#/components/schemas`. */
export function componentNames({ singular }: Pick<Collection, 'singular'>) {
  const name = `${singular.charAt(0).toUpperCase()}${singular.slice(1)}`;
  return { record: name, fields: `${name}Fields`, patch: `${name}Patch`, projection: `${name}Projection` };
}

/**
 * The documented components of one collection, derived from the schema it validates with (the
 * operator's; without one, any object): `User` (a record as served), `UserFields` (a create
 * body), `UserPatch` (a modify body, a JSON Merge Patch) and `UserProjection` (a record in a
 * page that `fields=` cut down).
 */
export function recordComponents(collection: Collection, embeds: readonly Embed[] = []): Record<string, JsonSchema> {
  const names = componentNames(collection);
  const document = collection.schema?.document;
  const declared = document ? asComponent(withFileSchemas(document, collection.files), names.fields) : ANY_FIELDS;
  // An account's password is sent, never served: the record as served has none, the bodies a write-only one.
  const account = collection.account !== undefined;
  const sent = account ? withPassword(declared) : declared;
  const fields = withOwner(sent, collection.owner);
  const record = withSystemFields(account ? withoutPassword(declared) : declared);
  // No example shows a password, not even one the operator's schema gave.
  const example = account && collection.example ? withoutPasswordValue(collection.example) : collection.example;
  const patch = withFilePatches(mergePatchOf(sent), sent, collection.files);
  // A password can be changed, never removed: it takes no null.
  if (account && patch.properties?.[PASSWORD_FIELD]) {
    patch.properties[PASSWORD_FIELD] = sent.properties?.[PASSWORD_FIELD];
  }
  const at = '2025-01-01T12:00:00.000Z';
  const examples = (value: object | undefined) => (value ? { examples: [value] } : {});
  const served = embeds.length > 0 && record.properties ? withExpand(record, embeds) : record;
  return {
    [names.record]: { ...served, ...examples(example && { id: 1, ...example, createdAt: at, updatedAt: at }) },
    [names.projection]: projectionOf(served),
    [names.fields]: { ...fields, ...examples(example) },
    [names.patch]: { ...patch, ...examples(example) },
  };
}

/** An example as a record's: without a password, which no answer ever holds. */
function withoutPasswordValue(example: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { [PASSWORD_FIELD]: _password, ...rest } = example;
  return rest;
}

/**
 * The fields a create sends where the collection names an owner field (`x-owner`): an
 * account's create gets it from its token, so a body need not hold it (a key's still must).
 */
function withOwner(fields: JsonSchema, owner: string | undefined): JsonSchema {
  if (owner === undefined || !fields.required?.includes(owner)) return fields;
  const property = fields.properties?.[owner] as JsonSchema | undefined;
  const note = "Set from the account's id when an account creates; an API key's create must send it.";
  return {
    ...fields,
    required: fields.required.filter((name) => name !== owner),
    ...(property && {
      properties: {
        ...fields.properties,
        [owner]: { ...property, description: property.description ? `${property.description} ${note}` : note },
      },
    }),
  };
}

/**
 * An account's fields as a create or change sends them: with its password, write-only, as
 * the schema declares it or as restock checks it when the schema does not, without any
 * example or default a schema gave it.
 */
function withPassword(fields: JsonSchema): JsonSchema {
  if (!isObjectSchema(fields, true)) return fields;
  const { examples: _examples, example: _example, default: _default, ...password } = passwordSchemaOf(fields);
  return { ...fields, properties: { ...fields.properties, [PASSWORD_FIELD]: { ...password, writeOnly: true } } };
}

/**
 * An operator's schema as an OpenAPI component: without `$schema` and `$id` (the three
 * derived copies would share one), and with its local references (`#/$defs/…`) pointing
 * into the component that keeps them.
 */
/** A reference whose records `expand=` embeds: its name, its target's record component, and whether it holds many. */
export interface Embed {
  name: string;
  record: string;
  many: boolean;
}

/** The record with its `expand` member: present only when the request asks for it. */
function withExpand(record: JsonSchema, embeds: readonly Embed[]): JsonSchema {
  const one = (embed: Embed) => ({ anyOf: [{ $ref: `#/components/schemas/${embed.record}` }, { type: 'null' }] });
  const properties = Object.fromEntries(
    embeds.map((embed) => [embed.name, embed.many ? { type: 'array', items: one(embed) } : one(embed)]),
  );
  const expand = {
    type: 'object',
    description:
      'Only with expand=: the record each reference it names refers to (null where it no longer exists), ' +
      "by the reference's name; an embedded record may hold its own expand.",
    properties,
  };
  return { ...record, properties: { ...record.properties, expand } };
}

function asComponent(document: Readonly<JsonSchema>, name: string): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = document;
  return JSON.parse(JSON.stringify(rest), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/')
      ? `#/components/schemas/${name}/${value.slice(2)}`
      : value,
  ) as JsonSchema;
}

/** A plain object schema, to be extended property by property; a record's own may omit its type. */
function isObjectSchema(schema: JsonSchema, isRecord = false): boolean {
  const type = schema.type ?? (isRecord ? 'object' : undefined);
  return type === 'object' && !schema.allOf && !schema.anyOf && !schema.oneOf;
}

/** A record: an object schema gains the system properties in response order, else an allOf. */
function withSystemFields(fields: JsonSchema): JsonSchema {
  if (!isObjectSchema(fields, true)) {
    return { allOf: [Type.Object({ id: ID, createdAt: CREATED_AT, updatedAt: UPDATED_AT }), fields] };
  }
  return {
    ...fields,
    type: 'object',
    description: fields === ANY_FIELDS ? RECORD_DESCRIPTION : fields.description,
    properties: { id: ID, ...fields.properties, createdAt: CREATED_AT, updatedAt: UPDATED_AT },
    required: [...new Set([...SYSTEM_FIELDS, ...(fields.required ?? [])])],
  };
}

const RECORD_DESCRIPTION = 'Any JSON object; id, createdAt and updatedAt are set by the server.';

/**
 * What a JSON Merge Patch (RFC 7396) of `schema` may hold: every field optional, at every
 * depth, and each may be `null` (which removes it) but one the schema requires, which no
 * change may remove (the server would answer 422: the record as changed breaks the schema).
 */
function mergePatchOf(schema: JsonSchema, isRecord = true): JsonSchema {
  if (!isObjectSchema(schema, isRecord)) return { ...ANY_FIELDS, description: PATCH_DESCRIPTION };
  const { required, ...rest } = schema;
  const kept = new Set(Array.isArray(required) ? required : []);
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([key, property]) => {
      const value = isObjectSchema(property as JsonSchema) ? mergePatchOf(property as JsonSchema, false) : property;
      return [key, kept.has(key) ? value : { anyOf: [value, { type: 'null' }] }];
    }),
  );
  return { ...rest, properties, ...(isRecord ? { description: PATCH_DESCRIPTION } : {}) };
}

/**
 * A record as `fields=` cuts it down: its id, and of the rest only the fields named, at any
 * depth (`fields=dimensions.weight`), so no other field is required anywhere.
 */
function projectionOf(record: JsonSchema): JsonSchema {
  const description = 'A record with only the fields that fields= names, besides its id.';
  if (!isObjectSchema(record, true)) return { type: 'object', properties: { id: ID }, required: ['id'], description };
  // Without the record's examples, which show a whole record (and, from a schema, none has an id).
  const { examples: _examples, ...projected } = optionalAtEveryDepth(record);
  return { ...projected, required: ['id'], description };
}

function optionalAtEveryDepth(schema: JsonSchema): JsonSchema {
  const { required: _required, ...rest } = schema;
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') {
    return { ...schema, items: optionalAtEveryDepth(schema.items as JsonSchema) };
  }
  if (!isObjectSchema(schema, true)) return schema;
  const properties = Object.entries(schema.properties ?? {}).map(([key, property]) => [
    key,
    optionalAtEveryDepth(property as JsonSchema),
  ]);
  return { ...rest, ...(schema.properties && { properties: Object.fromEntries(properties) }) };
}

const PATCH_DESCRIPTION =
  'The changes, as a JSON Merge Patch: present fields replace, null removes (but a required field), absent ' +
  'fields stay, nested objects merge.';
