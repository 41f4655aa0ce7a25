/**
 * A field whose value no two records of a collection may share (missing and null aside).
 * Declared here, below both, because the operator's schemas name them (`x-unique`) and the
 * store keeps them with unique indexes. src/store/store.ts still declares the same shape
 * itself; the two are one type to TypeScript, which compares shapes.
 */
export interface UniqueField {
  readonly collection: string;
  readonly path: readonly string[];
  /** Compare text ignoring the case of ASCII letters (e-mail addresses). */
  readonly ignoreCase: boolean;
}
