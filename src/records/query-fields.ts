/**
 * Which field names a collection's queries may name. A closed schema (`additionalProperties:
 * false` at the top) says every field a record can have, so a filter, sort or projection on
 * any other name is a typo that would silently match nothing: it is refused, with the nearest
 * known name. An open schema, or none, takes any field, and so any name.
 */

import { nearest } from '../config/nearest.js';
import { PASSWORD_FIELD } from '../core/accounts.js';
import { type Collection, SYSTEM_FIELDS } from '../core/collection.js';
import { invalidQuery, type Refusal } from './refusal.js';

/** The names a collection's queries may start a field path with. */
export interface QueryFields {
  /** Every top-level field a record may have; undefined when its schema takes any. */
  readonly known?: ReadonlySet<string>;
  /** Fields no record ever holds although its schema names them: an account's password. */
  readonly withheld: ReadonlySet<string>;
}

/** Any name at all: a collection without a schema, or a caller that knows none. */
export const ANY_FIELDS: QueryFields = { withheld: new Set() };

/** The fields `collection`'s queries may name, read once from its schema. */
export function queryFieldsOf(collection: Collection): QueryFields {
  const withheld = new Set<string>(collection.account ? [PASSWORD_FIELD] : []);
  const document = collection.schema?.document;
  const properties = document?.properties;
  // patternProperties would admit names no list can hold; such a schema is read as open.
  const closed =
    document?.additionalProperties === false &&
    document.patternProperties === undefined &&
    typeof properties === 'object' &&
    properties !== null;
  if (!closed) return { withheld };
  const declared = Object.keys(properties).filter((name) => !withheld.has(name));
  return { known: new Set([...SYSTEM_FIELDS, ...declared]), withheld };
}

/**
 * Refuses the dotted field `name` in `parameter` when no record can have it: its first part
 * is withheld, or not a field of a closed schema. Only the first part is checked: what lies
 * inside a field is the schema's to say in many ways (`$ref`, `anyOf`, arrays), none cheap.
 */
export function unknownField(fields: QueryFields, name: string, parameter: string): Refusal | undefined {
  const top = name.split('.')[0] ?? name;
  if (fields.withheld.has(top)) {
    return invalidQuery(parameter, `names ${top}, which is never stored and cannot be queried`);
  }
  if (!fields.known || fields.known.has(top)) return undefined;
  const guess = nearest(top, fields.known);
  const hint = guess === undefined ? '' : `; did you mean ${guess}?`;
  return invalidQuery(parameter, `names ${top}, which no record of this collection has${hint}`);
}
