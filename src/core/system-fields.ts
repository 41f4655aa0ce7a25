/**
 * The fields the server owns on every record (`id`, `createdAt`, `updatedAt`): named once
 * here, and every floor that lists, recognises, strips or reads them does it through this file.
 */

/** Fields the server owns on every record: ignored when a client sends them. */
export const SYSTEM_FIELDS = ['id', 'createdAt', 'updatedAt'] as const;
export type SystemField = (typeof SYSTEM_FIELDS)[number];

const SYSTEM: ReadonlySet<string> = new Set(SYSTEM_FIELDS);

/** Whether a top-level field name is one of the server's own. */
export function isSystemField(name: string): name is SystemField {
  return SYSTEM.has(name);
}

/** The client's fields of a record: the object without the system fields (a copy only when it has any). */
export function withoutSystemFields(fields: Record<string, unknown>): Record<string, unknown> {
  if (!SYSTEM_FIELDS.some((name) => Object.hasOwn(fields, name))) return fields;
  const copy = { ...fields };
  for (const name of SYSTEM_FIELDS) delete copy[name];
  return copy;
}

/** A stored record's system fields, as an object of their own. */
export function systemFieldsOf<R extends Record<SystemField, unknown>>(record: R): Pick<R, SystemField> {
  return { id: record.id, createdAt: record.createdAt, updatedAt: record.updatedAt };
}
