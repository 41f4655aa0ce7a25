/**
 * The record a read answers, as its query shapes it: only the `fields` it names (and `id`),
 * and under `expand` the records its references name, by the reference's name as restock
 * writes them (`expand.userId`, `expand['items.productId']`): one record or `null` for a
 * reference in a field of its own, an array for one inside an array, and inside an embedded
 * record its own `expand` for a name that follows a second reference (`userId.companyId`).
 */
import type { KnownKeys } from './query-types.js';
import type { Stored } from './stored.js';

/**
 * Each reference name of a collection (as `R` names them, dotted ones and those two deep
 * included) with the record type of the collection it names: `{ userId: User; … }`.
 */
export type Embeds<R> = { [N in keyof R]: object };

/** The reference of which `N` follows a second one (`userId` for `userId.companyId`), or never. */
type ParentOf<R, N> = {
  [P in keyof R & string]: N extends `${P}.${string}` ? (N extends P ? never : P) : never;
}[keyof R & string];

/** The name under `expand` that the requested name `N` fills: itself, or the reference it starts from. */
type TopOf<R, N> = N extends unknown ? ([ParentOf<R, N>] extends [never] ? N : ParentOf<R, N>) : never;

/** Whether the dotted path `P` of `T` passes through an array (restock then embeds an array). */
type Many<T, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends keyof T
    ? NonNullable<T[Head]> extends readonly unknown[]
      ? true
      : Many<NonNullable<T[Head]>, Rest>
    : false
  : P extends keyof T
    ? NonNullable<T[P]> extends readonly unknown[]
      ? true
      : false
    : false;

/** One or many of `V`, as the path `P` of `T` holds its ids; a record gone or not for the caller's eyes is `null`. */
type OneOrMany<T, P extends string, V> = Many<T, P> extends true ? (V | null)[] : V | null;

/** The names among `X` that follow a second reference after `D`, without `D.`. */
type After<R, X, D extends string> = X extends `${D}.${infer Rest}` ? (ParentOf<R, X> extends D ? Rest : never) : never;

/** The record embedded for the reference `D`, with its own `expand` when `X` follows one of its references. */
type Embedded<R, E extends Embeds<R>, X, D extends keyof E & string> = [After<R, X, D>] extends [never]
  ? Stored<E[D]>
  : Stored<E[D]> & {
      expand: {
        [S in After<R, X, D>]: OneOrMany<E[D], S, `${D}.${S}` extends keyof E ? Stored<E[`${D}.${S}`]> : never>;
      };
    };

/** The `expand` member for the requested names `X` of a record `T` with references `R` (records `E`). */
export type Expansion<T, R, E extends Embeds<R>, X> = string extends keyof R
  ? Record<string, unknown>
  : { [D in TopOf<R, X> & keyof E & string]: OneOrMany<T, D, Embedded<R, E, X, D>> };

/** `S` with only the fields named by `F` (a dotted name keeps its top field), and its `id`. */
export type Picked<S, F extends string> = {
  [K in keyof S as K extends 'id' | F | (F extends `${infer Head}.${string}` ? Head : never) ? K : never]: S[K];
};

/**
 * What a read answers for a record `T` asked with `fields` `F` and `expand` `X` (`never`: not
 * asked). A record type that declares no field (the untyped client's) stays whole: any name goes.
 */
export type ReadRecord<T, R, E extends Embeds<R>, F extends string, X> = [F, X] extends [never, never]
  ? Stored<T>
  : ([F] extends [never] ? Stored<T> : [KnownKeys<T>] extends [never] ? Stored<T> : Picked<Stored<T>, F>) &
      ([X] extends [never] ? unknown : { expand: Expansion<T, R, E, X> });
