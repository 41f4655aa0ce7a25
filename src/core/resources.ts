/**
 * What a collection is to the routes, tables and docs, and the two restock serves when no
 * schema folder declares others (./collections.ts).
 */

/** What it takes to serve a collection of records over HTTP. */
export interface ResourceDefinition {
  /** The collection's name: its table, and its path (`/users/`). */
  readonly plural: string;
  /** The name of one record: its item path (`/user/7/`) and create path (`/user/`). */
  readonly singular: string;
  /** One line for docs and the index. */
  readonly description: string;
  /** A typical record's fields, shown in the reference page and prefilled by its "try it". */
  readonly example?: Readonly<Record<string, unknown>>;
  /** Fields kept indexed, dotted for nested ones (a schema's `x-index`). */
  readonly indexes?: readonly string[];
}

/**
 * Declares a resource. Names must be lower-case words, as they become paths and tables, short
 * enough for PostgreSQL's 63-byte identifiers once an index's suffix is added.
 */
export function defineResource(definition: ResourceDefinition): ResourceDefinition {
  for (const name of [definition.plural, definition.singular]) {
    if (!/^[a-z][a-z0-9_]{0,39}$/.test(name)) {
      throw new Error(`the name "${name}" must be a lower-case word of at most 40 letters, digits and _`);
    }
  }
  if (definition.plural === definition.singular) {
    throw new Error(`the singular "${definition.singular}" must differ from the plural`);
  }
  return Object.freeze({ ...definition });
}

export const users = defineResource({
  plural: 'users',
  singular: 'user',
  description: 'People who have an account with the store.',
  example: { name: 'Ada Lovelace', email: 'ada@example.com' },
  indexes: ['email'],
});

export const products = defineResource({
  plural: 'products',
  singular: 'product',
  description: "The online store's catalogue.",
  example: { name: 'Teapot', sku: 'TEA-1', price: 19.5 },
  indexes: ['sku', 'price'],
});

/** The collections served when no schema folder declares them, in the order they are listed. */
export const DEFAULT_RESOURCES: readonly ResourceDefinition[] = [users, products];

/** The canonical paths of a resource: collection, create, and one record. */
export function canonicalPaths(resource: ResourceDefinition) {
  return {
    collection: `/${resource.plural}/`,
    create: `/${resource.singular}/`,
    item: (id: number | string) => `/${resource.singular}/${id}/`,
  };
}
