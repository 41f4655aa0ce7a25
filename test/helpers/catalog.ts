/**
 * Catalogs for tests that open a store directly: plain collections (any JSON object) by
 * name, with the indexes and unique fields a test gives them.
 */
import { buildCatalog, type Catalog } from '../../src/core/catalog.js';
import type { IndexedField } from '../../src/core/indexed-field.js';
import type { UniqueField } from '../../src/core/unique-field.js';

export interface PlainCollections {
  indexes?: readonly IndexedField[];
  unique?: readonly UniqueField[];
}

/** A catalog of `names`, each a collection without a schema; a name not ending in s is its own singular's plural. */
export function catalogOf(names: readonly string[], { indexes = [], unique = [] }: PlainCollections = {}): Catalog {
  return buildCatalog(
    names.map((plural) => ({
      plural,
      singular: plural.endsWith('s') ? plural.slice(0, -1) : `one_${plural}`,
      unique: unique.filter((field) => field.collection === plural),
    })),
    { indexes },
  );
}
