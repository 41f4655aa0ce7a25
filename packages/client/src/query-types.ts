/**
 * The types that check a list query against a record type: which fields a filter, a sort, a
 * `fields` or an `expand` may name, and which operators and values each field takes. They
 * follow what restock accepts (docs/api.md, "Pages, order and filters"): comparisons are
 * typed, so a number field orders against numbers and a text field (dates included) against
 * text; `contains` finds text in a string or an element in an array; `startsWith` is for text.
 *
 * A record type with no declared fields (the untyped client's `Record<string, unknown>`)
 * gets the loose forms, in which any name and any scalar go, as restock itself allows.
 */
import type { NotesKey, Stored } from './stored.js';

/** A value a filter compares with. */
export type Scalar = string | number | boolean | null;

/** Every operator, for a field whose type the client does not know. */
export interface Operators {
  eq?: Scalar;
  ne?: Scalar;
  lt?: Scalar;
  lte?: Scalar;
  gt?: Scalar;
  gte?: Scalar;
  in?: readonly Scalar[];
  contains?: Scalar;
  startsWith?: string;
}

/** The keys `T` declares, without those of an index signature (`[k: string]: unknown`) nor its notes. */
export type KnownKeys<T> = keyof {
  [K in keyof T as string extends K
    ? never
    : number extends K
      ? never
      : symbol extends K
        ? never
        : K extends NotesKey
          ? never
          : K]: true;
} &
  string;

/** Whether `T` declares no field of its own, so that queries on it stay loose. */
type Untyped<T> = [KnownKeys<T>] extends [never] ? true : false;

/** How deep dotted names reach into nested objects (`address.city` is one step). */
type Depth = [never, 0, 1, 2];

type IsObject<V> = [V] extends [readonly unknown[]] ? false : [V] extends [object] ? true : false;

/** The dotted names of `T`'s fields, nested objects' fields included (arrays are leaves). */
export type FieldPath<T, D extends number = 3> = [D] extends [never]
  ? never
  : {
      [K in KnownKeys<T>]-?: IsObject<NonNullable<T[K]>> extends true
        ? K | `${K}.${FieldPath<NonNullable<T[K]>, Depth[D]>}`
        : K;
    }[KnownKeys<T>];

/** The type of the field a dotted name reaches. */
export type ValueAt<T, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends keyof T
    ? ValueAt<NonNullable<T[Head]>, Rest>
    : never
  : P extends keyof T
    ? T[P]
    : never;

type Equality<V> = { eq?: V | null; ne?: V | null; in?: readonly (V | null)[] };
type Ordered<V> = { lt?: V; lte?: V; gt?: V; gte?: V };

/** The operators a field of type `V` takes, with values of its type. */
export type OperatorsFor<V> = unknown extends V
  ? Operators
  : [V] extends [readonly (infer Element)[]]
    ? { eq?: null; ne?: null; contains?: Element & Scalar }
    : [V] extends [number]
      ? Equality<V> & Ordered<number>
      : [V] extends [string]
        ? Equality<V> & Ordered<string> & { contains?: string; startsWith?: string }
        : [V] extends [boolean]
          ? Equality<boolean>
          : [V] extends [object]
            ? { eq?: null; ne?: null }
            : Operators;

/** A field's condition: its value (equality, for a scalar field), `null` (missing), or operators. */
export type Condition<V> =
  | OperatorsFor<NonNullable<V>>
  | null
  | (unknown extends V ? Scalar : NonNullable<V> extends Scalar ? NonNullable<V> : never);

/** A record as queries see it: its fields and restock's, without those no read returns (a query naming one is a 400). */
type Queried<T> = Stored<T>;

/** Conditions by field, dotted for nested ones; all of them must hold. */
export type Filter<T> =
  Untyped<T> extends true
    ? Record<string, Scalar | Operators>
    : { [P in FieldPath<Queried<T>>]?: Condition<ValueAt<Queried<T>, P>> };

/**
 * A field's condition in a filter expression (./where.ts): as in {@link Filter}, without
 * `startsWith`, which the language lacks, and with `contains` for array fields only (the
 * language's `"x" in tags`).
 */
export type ExpressionCondition<V> = [NonNullable<V>] extends [readonly unknown[]]
  ? Condition<V>
  : Exclude<Condition<V>, object> | Omit<OperatorsFor<NonNullable<V>>, 'contains' | 'startsWith'>;

/** Conditions by field that must all hold, as a clause of a filter expression. */
export type ExpressionFilter<T> =
  Untyped<T> extends true
    ? Record<string, Scalar | Omit<Operators, 'contains' | 'startsWith'>>
    : { [P in FieldPath<Queried<T>>]?: ExpressionCondition<ValueAt<Queried<T>, P>> };

/** The fields a list can be ordered by: those holding a number, text or a boolean. */
export type SortField<T> = {
  [P in FieldPath<Queried<T>>]: NonNullable<ValueAt<Queried<T>, P>> extends string | number | boolean ? P : never;
}[FieldPath<Queried<T>>];

/** A sort key: a field, `-` first for descending. */
export type SortKey<T> = Untyped<T> extends true ? string : SortField<T> | `-${SortField<T>}`;

/** The names `fields=` may pick. */
export type FieldName<T> = Untyped<T> extends true ? string : FieldPath<Queried<T>>;

/**
 * The reference fields of each collection (`expand=`), by plural, each naming the collection
 * it refers to: `{ orders: { userId: 'users'; 'items.productId': 'products' } }`, as
 * `restock types` writes them.
 */
export type ReferenceMap<C> = { [K in keyof C]?: Record<string, string> };

/** When no reference map is given: any name goes (inside arrays too, `items.productId`), as restock decides. */
export type AnyReferences<C> = { [K in keyof C]: Record<string, string> };

/** The names `expand=` takes for a record with references `R`. */
export type ExpandName<R> = keyof R & string;
