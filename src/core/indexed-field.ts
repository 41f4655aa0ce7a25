/**
 * A field path to keep an index on, so that filters and sorts on it do not scan. Declared
 * here, below both, because the configuration reads it (INDEXES) and the store builds it.
 */
export interface IndexedField {
  readonly collection: string;
  readonly path: readonly string[];
}
