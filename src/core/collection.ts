/**
 * A collection, as every part of restock sees it: its names, the operator's JSON Schema,
 * its indexes and unique fields, and its references both ways. Each is built once, at
 * start, by the catalog (./catalog.ts), and handed whole to the store, the routes, the
 * OpenAPI document, the console's index and the commands, the way PocketBase's tables,
 * API and admin all read one collection model.
 */
import type { AccountSettings } from './accounts.js';
import type { CollectionSchema } from './collection-schema.js';
import type { FileField } from './file-fields.js';
import type { IndexedField } from './indexed-field.js';
import type { DeclaredReference } from './references.js';
import type { CollectionRules } from './rules/rule-tree.js';
import type { UniqueField } from './unique-field.js';

export { SYSTEM_FIELDS, type SystemField } from './system-fields.js';

export interface Collection {
  /** The collection's name: its table, and its path (`/users/`). */
  readonly plural: string;
  /** The name of one record: its item path (`/user/7/`) and create path (`/user/`). */
  readonly singular: string;
  /** One line for docs and the index. */
  readonly description: string;
  /** A typical record's fields, shown in the reference page and prefilled by its "try it". */
  readonly example?: Readonly<Record<string, unknown>>;
  /** Where it was declared, for messages: its schema file, or its name. */
  readonly source: string;
  /** The operator's JSON Schema, compiled; a collection without one takes any JSON object. */
  readonly schema?: CollectionSchema;
  /** Its fields kept indexed: those it declares, each reference held in one id, and INDEXES'. */
  readonly indexes: readonly IndexedField[];
  /** Its fields no two records may share. */
  readonly unique: readonly UniqueField[];
  /** The references its records hold, each holding the collection it refers to. */
  readonly references: readonly Reference[];
  /** The references other collections' records (or its own) hold to its records. */
  readonly referrers: readonly Reference[];
  /** Set when its records are accounts (`x-auth`): they sign in, and their claims go into tokens. */
  readonly account?: AccountSettings;
  /** Who may do what without an API key (`x-rules`); an operation without a rule is for keys only. */
  readonly rules: CollectionRules;
  /** The field a create sets from the caller's account id, which no account may change (`x-owner`). */
  readonly owner?: string;
  /** Its fields that hold files (`x-file`): their values are metadata, the bytes are in the file storage. */
  readonly files: readonly FileField[];
}

/**
 * A field whose value is the id of a record of `target` (`x-ref`), resolved by the catalog:
 * it holds both collections, never their names.
 */
export interface Reference extends Omit<DeclaredReference, 'collection' | 'target'> {
  /** The collection whose records hold the reference. */
  readonly collection: Collection;
  /** The collection it refers to. */
  readonly target: Collection;
}

/** What declares a collection: its names and, when it has them, its schema and fields. */
export interface CollectionDeclaration {
  readonly plural: string;
  /** Default: the plural without its final s. */
  readonly singular?: string;
  readonly description?: string;
  readonly example?: Readonly<Record<string, unknown>>;
  readonly schema?: CollectionSchema;
  /** Dotted fields to index, beyond the schema's own (`x-index`). */
  readonly indexes?: readonly string[];
  /** Fields to keep unique, instead of the schema's (`x-unique`). */
  readonly unique?: readonly UniqueField[];
  /** Record rules, instead of the schema's (`x-rules`). */
  readonly rules?: CollectionRules;
  /** Accounts, instead of the schema's (`x-auth`). */
  readonly account?: AccountSettings;
  /** The owner field, instead of the schema's (`x-owner`). */
  readonly owner?: string;
}

/** The canonical paths of a collection: its list, create, and one record. */
export function collectionPaths({ plural, singular }: Pick<Collection, 'plural' | 'singular'>) {
  return {
    collection: `/${plural}/`,
    create: `/${singular}/`,
    item: (id: number | string) => `/${singular}/${id}/`,
  };
}
