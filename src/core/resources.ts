/**
 * The collections restock serves. Each is one declaration of the same resource
 * definition: the routes, store tables and docs are all derived from it.
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
}

/** Declares a resource; names must be lower-case words, as they become paths and tables. */
export function defineResource(definition: ResourceDefinition): ResourceDefinition {
  for (const name of [definition.plural, definition.singular]) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`resource name "${name}" must be a lower-case word`);
  }
  return Object.freeze({ ...definition });
}

export const users = defineResource({
  plural: 'users',
  singular: 'user',
  description: 'People who have an account with the store.',
  example: { name: 'Ada Lovelace', email: 'ada@example.com' },
});

export const products = defineResource({
  plural: 'products',
  singular: 'product',
  description: "The online store's catalogue.",
  example: { name: 'Teapot', sku: 'TEA-1', price: 19.5 },
});

/** Every collection restock serves, in the order the index and docs list them. */
export const RESOURCES: readonly ResourceDefinition[] = [users, products];

/** The canonical paths of a resource: collection, create, and one record. */
export function canonicalPaths(resource: ResourceDefinition) {
  return {
    collection: `/${resource.plural}/`,
    create: `/${resource.singular}/`,
    item: (id: number | string) => `/${resource.singular}/${id}/`,
  };
}
