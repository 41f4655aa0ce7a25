/**
 * The catalog the settings declare. With no `SCHEMAS` folder, users and products, open to
 * any JSON object. With one, each `<plural>.schema.json` in it declares a collection: its
 * paths, its validation, its indexes, unique fields and references.
 */
import { buildCatalog, type Catalog } from './catalog.js';
import type { CollectionDeclaration } from './collection.js';
import { type CollectionSchema, loadCollectionSchemas } from './collection-schema.js';
import { ConfigError } from './config-error.js';
import { DEFAULT_COLLECTIONS } from './default-collections.js';
import type { IndexedField } from './indexed-field.js';
import { isObject } from './is-object.js';
import { unknownClaim } from './schema-file-checks.js';

/** The settings a catalog reads. */
export interface CatalogSettings {
  readonly schemas: string;
  readonly indexes: readonly IndexedField[];
  /**
   * Tokens of another issuer (AUTH_JWKS_URL, AUTH_PUBLIC_KEY_FILE) carry claims no schema
   * names, so rules' `auth.*` are checked only when both are given and empty.
   */
  readonly authJwksUrl?: string;
  readonly authPublicKeyFile?: string;
}

/** The catalog `settings` declare; anything wrong is a one-line {@link ConfigError}. */
export function loadCatalog(settings: CatalogSettings): Catalog {
  const warnings: string[] = [];
  if (settings.indexes.length > 0 && settings.schemas !== '') {
    warnings.push('INDEXES is deprecated with SCHEMAS: name the fields in each schema\'s "x-index" instead');
  }
  if (settings.schemas === '') return buildCatalog(DEFAULT_COLLECTIONS, { indexes: settings.indexes, warnings });
  const schemas = loadCollectionSchemas(settings.schemas);
  if (schemas.size === 0) throw new ConfigError(`SCHEMAS: ${settings.schemas} holds no <plural>.schema.json file`);
  if (settings.authJwksUrl === '' && settings.authPublicKeyFile === '') refuseUnknownClaims([...schemas.values()]);
  return buildCatalog([...schemas.values()].map(declarationOf), { indexes: settings.indexes, warnings });
}

/** Refuses a rule reading an `auth.*` no token restock signs carries, naming its file. */
function refuseUnknownClaims(schemas: readonly CollectionSchema[]): void {
  const claims = new Set([
    'id',
    'collection',
    'verified',
    ...schemas.flatMap((schema) => schema.account?.claims ?? []),
  ]);
  for (const schema of schemas) {
    const mistake = unknownClaim(schema.rules, claims);
    if (mistake) throw new ConfigError(`SCHEMAS: ${schema.file}: ${mistake}`);
  }
}

/** What a schema file declares: its collection's names, description and example are in it too. */
function declarationOf(schema: CollectionSchema): CollectionDeclaration {
  const { document } = schema;
  const examples = document.examples;
  const example = Array.isArray(examples) && isObject(examples[0]) ? examples[0] : undefined;
  return {
    plural: schema.collection,
    ...(schema.singular !== undefined && { singular: schema.singular }),
    ...(typeof document.description === 'string' && { description: document.description }),
    ...(example && { example }),
    schema,
  };
}
