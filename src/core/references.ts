/**
 * References between collections: a field a schema marks `"x-ref": "<plural>"` holds the id
 * of a record of that collection, at any depth and inside arrays (`items[].productId`).
 * This module finds them in a schema and in a record; the store keeps them whole (a
 * missing record is refused, a referenced one is not deleted unless the reference says
 * what to do) and the HTTP layer embeds them (`expand=`).
 */

import { isObject } from './is-object.js';
import { escapePointer } from './json-pointer.js';

/** What deleting a referenced record does to the records that refer to it. */
export type OnDelete = 'restrict' | 'cascade' | 'set-null';
export const ON_DELETE: readonly OnDelete[] = ['restrict', 'cascade', 'set-null'];

/** A step of a reference's path: a field name, or every element of an array. */
export type Step = string | typeof EACH;
export const EACH: unique symbol = Symbol('each element');

/**
 * A reference as a schema declares it, naming collections; the catalog resolves each into a
 * `Reference` (./collection.ts) that holds the collections themselves.
 */
export interface DeclaredReference {
  /** The collection whose records hold the reference. */
  readonly collection: string;
  /** Its name as `expand=` and messages give it: the field names joined by dots (`items.productId`). */
  readonly name: string;
  readonly path: readonly Step[];
  /** The collection it refers to, by its plural. */
  readonly target: string;
  readonly onDelete: OnDelete;
}

/** Where a reference is in a record: all that finding its ids needs. */
type Located = Pick<DeclaredReference, 'path'>;

/** A referenced id, and where in the record it is (a JSON Pointer). */
export interface HeldId {
  readonly id: number;
  readonly pointer: string;
}

/**
 * The references a schema declares, found by walking its `properties` and array `items`.
 * `fail` says what is wrong with an annotation.
 */
export function referencesOf(collection: string, document: unknown, fail: (why: string) => Error): DeclaredReference[] {
  const found: DeclaredReference[] = [];
  const walk = (schema: unknown, path: Step[]) => {
    if (!isObject(schema)) return;
    const target = schema['x-ref'];
    if (target !== undefined) {
      if (path.length === 0) throw fail('x-ref must annotate a field, not the record');
      if (typeof target !== 'string') throw fail(`${nameOf(path)}: x-ref must name a collection`);
      const onDelete = (schema['x-on-delete'] ?? 'restrict') as OnDelete;
      if (!ON_DELETE.includes(onDelete)) throw fail(`x-on-delete must be one of ${ON_DELETE.join(', ')}`);
      if (onDelete === 'set-null' && path.at(-1) === EACH) {
        throw fail(`${nameOf(path)} is an array of ids: x-on-delete "set-null" cannot apply to it`);
      }
      if (onDelete === 'set-null' && !acceptsNull(schema)) {
        throw fail(`${nameOf(path)}: x-on-delete "set-null" writes null there, so its type must include "null"`);
      }
      found.push({ collection, name: nameOf(path), path, target, onDelete });
      return;
    }
    if (isObject(schema.properties)) {
      for (const [field, child] of Object.entries(schema.properties)) walk(child, [...path, field]);
    }
    if (schema.items !== undefined) walk(schema.items, [...path, EACH]);
  };
  walk(document, []);
  return found;
}

/** The name of a path: its fields joined by dots. */
export function nameOf(path: readonly Step[]): string {
  return path.filter((step): step is string => step !== EACH).join('.');
}

/** Whether a reference holds one id (no array on its path): it can be indexed and set to null. */
export function isScalar(reference: Located): boolean {
  return !reference.path.includes(EACH);
}

/**
 * Every id `record` holds for `reference`. Null and missing values hold none; a value that
 * is no id (a string, a fraction, 0) is returned as id 0, which no record has.
 */
export function heldIds(record: unknown, reference: Located): HeldId[] {
  const held: HeldId[] = [];
  const walk = (value: unknown, at: number, pointer: string) => {
    if (at === reference.path.length) {
      if (value === null || value === undefined) return;
      const id = typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
      held.push({ id, pointer });
      return;
    }
    const step = reference.path[at] as Step;
    if (step === EACH) {
      if (Array.isArray(value)) for (const [i, item] of value.entries()) walk(item, at + 1, `${pointer}/${i}`);
    } else if (isObject(value) && Object.hasOwn(value, step)) {
      walk(value[step], at + 1, `${pointer}/${escapePointer(step)}`);
    }
  };
  walk(record, 0, '');
  return held;
}

/** `record` with every value of `reference` that equals `id` set to null (a copy). */
export function withNulled(record: Record<string, unknown>, reference: Located, id: number): Record<string, unknown> {
  const copy = structuredClone(record);
  const walk = (value: unknown, at: number) => {
    const step = reference.path[at] as string;
    if (!isObject(value) || !Object.hasOwn(value, step)) return;
    if (at === reference.path.length - 1) {
      if (value[step] === id) value[step] = null;
    } else {
      walk(value[step], at + 1);
    }
  };
  walk(copy, 0);
  return copy;
}

/**
 * Whether a field declares that it may hold null: its `type` names "null", and an `enum` or
 * `const` it has allows it. Nothing else is looked at (`anyOf` and the like), so a set-null
 * field says so in its own `type`, and a nulled record always meets its schema.
 */
function acceptsNull(schema: Record<string, unknown>): boolean {
  const { type } = schema;
  if (type !== 'null' && !(Array.isArray(type) && type.includes('null'))) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) return false;
  return !Object.hasOwn(schema, 'const') || schema.const === null;
}
