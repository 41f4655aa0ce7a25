/**
 * JSON Schemas written as code, for the routes Fastify validates and for the OpenAPI document:
 * `Type.Object({ id: Type.String() })` is `{ type: 'object', required: ['id'], properties: … }`.
 * The builders make the very objects TypeBox made (the same keys in the same order, a
 * field marked optional left out of `required`), and `Static` reads a shape's TypeScript
 * type for the few routes that need it. They replace TypeBox, whose 373 modules were a fifth
 * of the CPU of a start for these dozen plain functions (docs/performance.md, Start-up and
 * footprint).
 */

/** A JSON Schema. `'~static'` and `'~optional'` exist only for the type checker, never in an object. */
export interface TSchema {
  readonly [key: string]: unknown;
  readonly '~static'?: unknown;
}

/** A schema of values of type `S`. */
type Of<S> = TSchema & { readonly '~static'?: S };

/** A field that `Type.Object` leaves out of `required`. */
type TOptional<T extends TSchema> = T & { readonly '~optional'?: true };

/** The TypeScript type of the values a schema built here describes. */
export type Static<T> = T extends { readonly '~static'?: infer S } ? (unknown extends S ? unknown : S) : unknown;

type Properties = Record<string, TSchema>;
type OptionalKeys<P extends Properties> = {
  [K in keyof P]: P[K] extends { readonly '~optional'?: infer O } ? (true extends O ? K : never) : never;
}[keyof P];
type ObjectOf<P extends Properties> = { [K in Exclude<keyof P, OptionalKeys<P>>]: Static<P[K]> } & {
  [K in OptionalKeys<P>]?: Static<P[K]>;
};

type Options = Record<string, unknown>;
type Literal = string | number | boolean;

/** Marks a schema as an optional field, as TypeBox did: on the object, where JSON never sees it. */
const OPTIONAL = '~optional';

function isOptional(schema: TSchema): boolean {
  return Object.getOwnPropertyDescriptor(schema, OPTIONAL)?.value === true;
}

function Optional<T extends TSchema>(schema: T): TOptional<T> {
  return Object.defineProperty({ ...schema }, OPTIONAL, { value: true, enumerable: false }) as TOptional<T>;
}

function Object_<P extends Properties>(properties: P, options: Options = {}): Of<ObjectOf<P>> {
  const required = Object.keys(properties).filter((key) => !isOptional(properties[key] as TSchema));
  return { type: 'object', ...(required.length > 0 && { required }), properties, ...options };
}

export const Type = {
  Optional,
  Object: Object_,
  String: (options: Options = {}): Of<string> => ({ type: 'string', ...options }),
  Integer: (options: Options = {}): Of<number> => ({ type: 'integer', ...options }),
  Boolean: (options: Options = {}): Of<boolean> => ({ type: 'boolean', ...options }),
  Null: (options: Options = {}): Of<null> => ({ type: 'null', ...options }),
  Unknown: (options: Options = {}): Of<unknown> => ({ ...options }),
  Literal: <const L extends Literal>(value: L, options: Options = {}): Of<L> => ({
    type: typeof value,
    const: value,
    ...options,
  }),
  Array: <T extends TSchema>(items: T, options: Options = {}): Of<Static<T>[]> => ({
    type: 'array',
    items,
    ...options,
  }),
  Union: <T extends TSchema[]>(anyOf: [...T], options: Options = {}): Of<Static<T[number]>> => ({ anyOf, ...options }),
  Intersect: (allOf: TSchema[], options: Options = {}): TSchema => ({ allOf, ...options }),
  Record: <V extends TSchema>(_key: TSchema, value: V, options: Options = {}): Of<Record<string, Static<V>>> => ({
    type: 'object',
    patternProperties: { '^.*$': value },
    ...options,
  }),
  /** A schema written by hand, taken as it is. */
  Unsafe: <S = unknown>(schema: Options): Of<S> => ({ ...schema }),
};
