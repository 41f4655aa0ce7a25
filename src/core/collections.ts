/**
 * The collections restock serves, declared in one place. With no `SCHEMAS` folder they are
 * users and products, open to any JSON object. With one, each `<plural>.schema.json` in it
 * declares a collection: its paths, its validation, its indexes and unique fields, the way
 * PocketBase's tables follow its declared collections. Everything else (routes, tables,
 * OpenAPI, the console, metrics, the commands) follows what this returns.
 */
import { type CollectionSchema, loadCollectionSchemas } from './collection-schema.js';
import { ConfigError } from './config-error.js';
import type { IndexedField } from './indexed-field.js';
import { isScalar, nameOf, type Reference } from './references.js';
import { DEFAULT_RESOURCES, defineResource, type ResourceDefinition } from './resources.js';

export interface DeclaredCollections {
  /** Every collection served, in the order the index, docs and console list them. */
  readonly resources: readonly ResourceDefinition[];
  /** The schema of each collection that has one (every one, when `SCHEMAS` is set). */
  readonly schemas: ReadonlyMap<string, CollectionSchema>;
  /** The fields to index: each collection's own, then those of the `INDEXES` setting. */
  readonly indexes: readonly IndexedField[];
  /** Every reference between collections (`x-ref`). */
  readonly references: readonly Reference[];
  /** What the operator should change, to log once at start. */
  readonly warnings: readonly string[];
}

/** The settings a declaration reads. */
export interface DeclarationSettings {
  readonly schemas: string;
  readonly indexes: readonly IndexedField[];
}

/**
 * Names a collection may not take: paths restock serves itself. (The tables the store keeps
 * beside the collections' own are the store's to refuse: src/store/store-tables.ts.)
 */
const RESERVED_NAMES = new Set(['healthz', 'readyz', 'metrics', 'problems', 'docs', 'console', 'openapi']);

/** The collections `settings` declare; anything wrong is a one-line {@link ConfigError}. */
export function declareCollections(settings: DeclarationSettings): DeclaredCollections {
  const warnings: string[] = [];
  if (settings.indexes.length > 0 && settings.schemas !== '') {
    warnings.push('INDEXES is deprecated with SCHEMAS: name the fields in each schema\'s "x-index" instead');
  }
  if (settings.schemas === '') {
    const indexes = [...DEFAULT_RESOURCES.flatMap((r) => indexesOf(r.plural, r.indexes ?? [])), ...settings.indexes];
    return checked({ resources: DEFAULT_RESOURCES, schemas: new Map(), indexes, references: [], warnings });
  }
  const schemas = loadCollectionSchemas(settings.schemas);
  if (schemas.size === 0) throw new ConfigError(`SCHEMAS: ${settings.schemas} holds no <plural>.schema.json file`);
  const resources = [...schemas.values()].map((schema) => resourceOf(schema));
  const references = [...schemas.values()].flatMap((s) => s.references);
  // Every reference held in one id is indexed, for `?userId=7` and for deletes to find referrers.
  const referenceIndexes = references
    .filter((reference) => isScalar(reference) && !schemas.get(reference.collection)?.indexes.includes(reference.name))
    .map((reference) => ({ collection: reference.collection, path: reference.name.split('.') }));
  const indexes = [
    ...[...schemas.values()].flatMap((s) => indexesOf(s.collection, s.indexes)),
    ...referenceIndexes,
    ...settings.indexes,
  ];
  return checked({ resources, schemas, indexes, references, warnings });
}

function resourceOf(schema: CollectionSchema): ResourceDefinition {
  const { collection: plural, document, file } = schema;
  const singular = schema.singular ?? (plural.endsWith('s') ? plural.slice(0, -1) : undefined);
  if (singular === undefined || singular === '') {
    throw new ConfigError(`SCHEMAS: ${file} must name its singular ("x-singular"): "${plural}" does not end in s`);
  }
  const description = typeof document.description === 'string' ? document.description : `The ${plural}.`;
  const examples = document.examples;
  const example = Array.isArray(examples) && isObject(examples[0]) ? examples[0] : undefined;
  try {
    return defineResource({ plural, singular, description, ...(example && { example }) });
  } catch (error) {
    throw new ConfigError(`SCHEMAS: ${file}: ${(error as Error).message}`);
  }
}

/** Refuses collections whose paths or tables would collide with each other or with restock's. */
function checked(declared: DeclaredCollections): DeclaredCollections {
  const taken = new Map<string, string>();
  for (const { plural, singular } of declared.resources) {
    for (const [name, role] of [
      [plural, `the plural of ${plural}`],
      [singular, `the singular of ${plural}`],
    ] as const) {
      if (RESERVED_NAMES.has(name)) {
        const file = declared.schemas.get(plural)?.file ?? plural;
        throw new ConfigError(`SCHEMAS: ${file}: "${name}" (${role}) is a path restock serves itself`);
      }
      const other = taken.get(name);
      if (other !== undefined) throw new ConfigError(`SCHEMAS: "${name}" is both ${other} and ${role}`);
      taken.set(name, role);
    }
  }
  const plurals = new Set(declared.resources.map((r) => r.plural));
  for (const reference of declared.references) {
    if (!plurals.has(reference.target)) {
      const file = declared.schemas.get(reference.collection)?.file ?? reference.collection;
      throw new ConfigError(
        `SCHEMAS: ${file}: ${nameOf(reference.path)} refers to "${reference.target}", which is not a collection ` +
          `(known: ${[...plurals].join(', ')})`,
      );
    }
  }
  for (const { collection } of declared.indexes) {
    if (!plurals.has(collection)) {
      throw new ConfigError(`INDEXES names an unknown collection "${collection}" (known: ${[...plurals].join(', ')})`);
    }
  }
  return declared;
}

function indexesOf(collection: string, fields: readonly string[]): IndexedField[] {
  return fields.map((field) => ({ collection, path: field.split('.') }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
