/**
 * The catalog: every collection restock serves, each one {@link Collection} built once at
 * start from its declaration, checked as a whole (names that collide or that restock's own
 * paths take, references to no collection, INDEXES naming none). It is the only place that
 * matches collections up by name: by plural, by singular, by a path's segment. Each
 * reference holds the collections it joins (resolved here, once), and who refers to a
 * collection is on its own definition; test/catalog-lookups.test.ts keeps it so.
 */
import type { Collection, CollectionDeclaration, Reference } from './collection.js';
import { ConfigError } from './config-error.js';
import type { IndexedField } from './indexed-field.js';
import { type DeclaredReference, isScalar, nameOf } from './references.js';
import { isSystemField } from './system-fields.js';

export interface Catalog {
  /** Every collection, in the order the index, docs and console list them. */
  readonly collections: readonly Collection[];
  /** Their plurals, in the same order. */
  readonly names: readonly string[];
  /** Whether `plural` names one of them. */
  has(plural: string): boolean;
  /** The collection named `plural`; any other name is a mistake in the code, and throws. */
  get(plural: string): Collection;
  /** The collection named `plural`, or undefined: for names that come from outside (a request, a file, the log). */
  byPlural(plural: string): Collection | undefined;
  /** The collection whose one record is named `singular` (`/user/7/`), or undefined. */
  bySingular(singular: string): Collection | undefined;
  /** The collection a path's first segment names, by its plural or its singular, or undefined. */
  byPath(segment: string): Collection | undefined;
  /**
   * What each collection has elsewhere (its records, its routes' context), made now by
   * `make` in the catalog's order and found again by the collection itself.
   */
  perCollection<T>(make: (collection: Collection) => T): (collection: Collection) => T;
  /** What the operator should change, to log once at start. */
  readonly warnings: readonly string[];
}

/**
 * Names a collection may not take: paths restock serves itself. (The tables the store keeps
 * beside the collections' own are the store's to refuse: src/store/store-tables.ts.)
 */
const RESERVED_NAMES = new Set([
  'healthz',
  'readyz',
  'metrics',
  'problems',
  'docs',
  'console',
  'openapi',
  'batch',
  'webhooks',
  'webhook',
]);

export interface CatalogOptions {
  /** Fields to index beyond the declarations' own (the INDEXES setting). */
  readonly indexes?: readonly IndexedField[];
  readonly warnings?: readonly string[];
}

/** The catalog of `declarations`; anything wrong is a one-line {@link ConfigError}. */
export function buildCatalog(declarations: readonly CollectionDeclaration[], options: CatalogOptions = {}): Catalog {
  const drafts = declarations.map(draftOf);
  checkNames(drafts);
  for (const draft of drafts) checkAccounts(draft);
  const byName = new Map(drafts.map((draft) => [draft.plural, draft]));
  for (const draft of drafts) {
    for (const reference of draft.references) {
      if (!byName.has(reference.target)) {
        throw new ConfigError(
          `SCHEMAS: ${draft.source}: ${nameOf(reference.path)} refers to "${reference.target}", which is not a ` +
            `collection (known: ${[...byName.keys()].join(', ')})`,
        );
      }
    }
  }
  const extra = options.indexes ?? [];
  for (const { collection } of extra) {
    if (!byName.has(collection)) {
      throw new ConfigError(
        `INDEXES names an unknown collection "${collection}" (known: ${[...byName.keys()].join(', ')})`,
      );
    }
  }
  const collections = drafts.map((draft) => ({
    ...draft,
    indexes: [...draft.indexes, ...extra.filter((field) => field.collection === draft.plural)],
    references: [] as Reference[],
    referrers: [] as Reference[],
  }));
  const found = new Map(collections.map((collection) => [collection.plural, collection]));
  const singulars = new Map(collections.map((collection) => [collection.singular, collection]));
  // Each reference holds both its collections; a referrer is listed in its holders' order.
  for (const [at, draft] of drafts.entries()) {
    const holder = collections[at] as (typeof collections)[number];
    for (const declared of draft.references) {
      const target = found.get(declared.target) as (typeof collections)[number];
      const reference: Reference = Object.freeze({ ...declared, collection: holder, target });
      holder.references.push(reference);
      target.referrers.push(reference);
    }
  }
  for (const collection of collections) {
    Object.freeze(collection.references);
    Object.freeze(collection.referrers);
    Object.freeze(collection);
  }
  return Object.freeze({
    collections: collections as readonly Collection[],
    names: [...found.keys()],
    has: (plural: string) => found.has(plural),
    get(plural: string) {
      const collection = found.get(plural);
      if (!collection) throw new Error(`no collection is named "${plural}"`);
      return collection;
    },
    byPlural: (plural: string) => found.get(plural),
    bySingular: (singular: string) => singulars.get(singular),
    byPath: (segment: string) => found.get(segment) ?? singulars.get(segment),
    perCollection<T>(make: (collection: Collection) => T) {
      const made = new Map<Collection, T>(collections.map((collection) => [collection, make(collection)]));
      return (collection: Collection): T => {
        if (!made.has(collection)) throw new Error(`"${collection.plural}" is not a collection of this catalog`);
        return made.get(collection) as T;
      };
    },
    warnings: options.warnings ?? [],
  });
}

type Draft = Omit<Collection, 'references' | 'referrers'> & { readonly references: readonly DeclaredReference[] };

/** A declaration's collection, but for what only the whole catalog knows. */
function draftOf(declaration: CollectionDeclaration): Draft {
  const { plural, schema } = declaration;
  const source = schema?.file ?? plural;
  const singular = declaration.singular ?? (plural.endsWith('s') ? plural.slice(0, -1) : '');
  if (singular === '') {
    throw new ConfigError(`SCHEMAS: ${source} must name its singular ("x-singular"): "${plural}" does not end in s`);
  }
  for (const name of [plural, singular]) {
    if (!/^[a-z][a-z0-9_]{0,39}$/.test(name)) {
      throw new ConfigError(
        `SCHEMAS: ${source}: the name "${name}" must be a lower-case word of at most 40 letters, digits and _`,
      );
    }
  }
  if (plural === singular) {
    throw new ConfigError(`SCHEMAS: ${source}: the singular "${singular}" must differ from the plural`);
  }
  const declared = [...(declaration.indexes ?? []), ...(schema?.indexes ?? [])];
  const references = schema?.references ?? [];
  // Every reference held in one id is indexed, for `?userId=7` and for deletes to find referrers.
  const referenceIndexes = references.filter((r) => isScalar(r) && !declared.includes(r.name)).map((r) => r.name);
  const unique = declaration.unique ?? schema?.unique ?? [];
  const account = declaration.account ?? schema?.account;
  const owner = declaration.owner ?? schema?.owner;
  return {
    plural,
    singular,
    description: declaration.description ?? `The ${plural}.`,
    ...(declaration.example && { example: declaration.example }),
    source,
    ...(schema && { schema }),
    indexes: [...declared, ...referenceIndexes].map((field) => ({ collection: plural, path: field.split('.') })),
    unique,
    references,
    rules: declaration.rules ?? schema?.rules ?? {},
    ...(account && { account }),
    ...(owner !== undefined && { owner }),
    files: schema?.files ?? [],
  };
}

/** Refuses an account collection no one could sign in to, and an owner field that is not a plain field. */
function checkAccounts(draft: Draft): void {
  const { account, owner, unique, source } = draft;
  if (account && unique.length === 0) {
    throw new ConfigError(`SCHEMAS: ${source}: x-auth needs a unique field to sign in with ("x-unique": ["email"])`);
  }
  if (owner !== undefined && isSystemField(owner)) {
    throw new ConfigError(`SCHEMAS: ${source}: x-owner names "${owner}", a field restock sets itself`);
  }
}

/** Refuses names that collide with each other, or with paths restock serves itself. */
function checkNames(drafts: readonly Draft[]): void {
  const taken = new Map<string, string>();
  for (const { plural, singular, source } of drafts) {
    for (const [name, role] of [
      [plural, `the plural of ${plural}`],
      [singular, `the singular of ${plural}`],
    ] as const) {
      if (RESERVED_NAMES.has(name)) {
        throw new ConfigError(`SCHEMAS: ${source}: "${name}" (${role}) is a path restock serves itself`);
      }
      const other = taken.get(name);
      if (other !== undefined) throw new ConfigError(`SCHEMAS: "${name}" is both ${other} and ${role}`);
      taken.set(name, role);
    }
  }
}
