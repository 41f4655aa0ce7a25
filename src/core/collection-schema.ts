/**
 * Collection schemas: an operator's JSON Schema (draft 2020-12) per collection, read at
 * start from one folder (`users.schema.json`, `orders.schema.json`). Each file declares the
 * collection it is named after (./load-catalog.ts); annotations name its singular
 * (`x-singular`), the fields to index (`x-index`) and those that must be unique (`x-unique`).
 *
 * ```json
 * { "type": "object", "required": ["email"], "properties": { "email": { "format": "email" } },
 *   "x-singular": "person", "x-index": ["name"],
 *   "x-unique": [{ "field": "email", "ignoreCase": true }, "sku"] }
 * ```
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  type AccountSettings,
  AUTH_META_SCHEMA,
  accountSettingsOf,
  passwordSchemaOf,
  withoutPassword,
} from './accounts.js';
import { ConfigError } from './config-error.js';
import { useExactMultipleOf } from './exact-multiple-of.js';
import { FILE_META_SCHEMA, type FileField, fileFieldsOf, withFileSchemas } from './file-fields.js';
import { escapePointer } from './json-pointer.js';
import { linearRegExp } from './linear-regexp.js';
import { type DeclaredReference, ON_DELETE, referencesOf } from './references.js';
import { parseRules } from './rules/rule-syntax.js';
import type { CollectionRules } from './rules/rule-tree.js';
import { misnamedSchemaFile, ownerMistake, parseJsonText, ruleFieldMistake } from './schema-file-checks.js';
import type { UniqueField } from './unique-field.js';

/** One failed check, as a JSON Pointer into the record and a message. */
export interface SchemaViolation {
  pointer: string;
  message: string;
}

export interface CollectionSchema {
  collection: string;
  /** The file it was read from, for messages. */
  file: string;
  /** The schema as written, for the API documentation. */
  document: Readonly<Record<string, unknown>>;
  /** The name of one record (`x-singular`), when the schema gives it. */
  singular?: string;
  /** Dotted field paths to index (`x-index`). */
  indexes: string[];
  unique: UniqueField[];
  /** Its fields that hold ids of records (`x-ref`, ../references.ts). */
  references: DeclaredReference[];
  /** Accounts (`x-auth`): the collection's records sign in, and `checkPassword` checks a password. */
  account?: AccountSettings;
  /** Its record rules (`x-rules`), parsed. */
  rules: CollectionRules;
  /** The field set from the caller's account id on create (`x-owner`). */
  owner?: string;
  /** Its fields that hold files (`x-file`, ../file-fields.ts). */
  files: FileField[];
  /** Every way `record` (the client's fields) breaks the schema; empty when it is valid. */
  check(record: unknown): SchemaViolation[];
  /** An account collection's check of a password, apart from the record's. */
  checkPassword?(password: unknown): SchemaViolation[];
}

/** The annotations restock reads from a schema. */
const UNIQUE_KEYWORD = 'x-unique';
const SINGULAR_KEYWORD = 'x-singular';
const INDEX_KEYWORD = 'x-index';
const REF_KEYWORD = 'x-ref';
const ON_DELETE_KEYWORD = 'x-on-delete';
const AUTH_KEYWORD = 'x-auth';
const RULES_KEYWORD = 'x-rules';
const OWNER_KEYWORD = 'x-owner';
const FILE_KEYWORD = 'x-file';

/**
 * Reads every `*.json` file of `folder` as the schema of the collection it is named after
 * (`users.json` or `users.schema.json`); a file named one slip from that (`users.schema.jsn`)
 * is refused rather than skipped. Anything wrong is a {@link ConfigError} of one line naming
 * the file.
 */
export function loadCollectionSchemas(folder: string): Map<string, CollectionSchema> {
  let files: string[];
  try {
    files = readdirSync(folder);
  } catch (error) {
    throw new ConfigError(`SCHEMAS: cannot read the folder ${folder} (${(error as Error).message})`);
  }
  for (const name of files) {
    const misnamed = misnamedSchemaFile(name);
    if (misnamed) throw new ConfigError(`SCHEMAS: ${join(folder, name)} ${misnamed}`);
  }
  files = files.filter((name) => name.endsWith('.json'));
  const ajv = new Ajv2020({ allErrors: true, strict: true, code: { regExp: linearRegExp } });
  addFormats.default(ajv);
  useExactMultipleOf(ajv);
  ajv.addKeyword({ keyword: UNIQUE_KEYWORD, metaSchema: UNIQUE_META_SCHEMA });
  ajv.addKeyword({ keyword: SINGULAR_KEYWORD, metaSchema: { type: 'string' } });
  ajv.addKeyword({ keyword: INDEX_KEYWORD, metaSchema: { type: 'array', items: FIELD_PATH } });
  ajv.addKeyword({ keyword: REF_KEYWORD, metaSchema: { type: 'string' } });
  ajv.addKeyword({ keyword: ON_DELETE_KEYWORD, metaSchema: { enum: ON_DELETE } });
  ajv.addKeyword({ keyword: AUTH_KEYWORD, metaSchema: AUTH_META_SCHEMA });
  // Rules are read apart (parseRules), where an error can name the rule and the column.
  ajv.addKeyword({ keyword: RULES_KEYWORD });
  ajv.addKeyword({ keyword: OWNER_KEYWORD, metaSchema: FIELD_PATH });
  ajv.addKeyword({ keyword: FILE_KEYWORD, metaSchema: FILE_META_SCHEMA });

  const schemas = new Map<string, CollectionSchema>();
  for (const name of files.sort()) {
    const file = join(folder, name);
    const collection = basename(name, '.json').replace(/\.schema$/, '');
    const fail = (why: string) => new ConfigError(`SCHEMAS: ${file} ${why}`);
    if (schemas.has(collection)) throw fail(`is a second schema for ${collection}`);
    let document: Record<string, unknown>;
    try {
      document = parseJsonText(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw fail(`cannot be read as JSON (${(error as Error).message})`);
    }
    if (document === null || typeof document !== 'object' || Array.isArray(document)) {
      throw fail('is not a JSON Schema object');
    }
    if (document.type !== undefined && document.type !== 'object') {
      throw fail(`must describe an object (its type is ${JSON.stringify(document.type)})`);
    }
    const unique = ((document[UNIQUE_KEYWORD] ?? []) as (string | { field: string; ignoreCase?: boolean })[]).map(
      (entry) => {
        const { field, ignoreCase = false } = typeof entry === 'string' ? { field: entry } : entry;
        return { collection, path: field.split('.'), ignoreCase };
      },
    );
    const uniqueNames = unique.map((field) => field.path.join('.'));
    const account = accountSettingsOf(document[AUTH_KEYWORD], document, uniqueNames, fail);
    const files = fileFieldsOf(document, fail);
    const stored = withFileSchemas(document, files);
    let validate: ReturnType<typeof ajv.compile>;
    let validatePassword: ReturnType<typeof ajv.compile> | undefined;
    try {
      validate = ajv.compile(account ? withoutPassword(stored) : stored);
      if (account) validatePassword = ajv.compile(passwordSchemaOf(document));
    } catch (error) {
      throw fail(`is not a valid JSON Schema: ${(error as Error).message}`);
    }
    const owner = document[OWNER_KEYWORD] as string | undefined;
    const singular = document[SINGULAR_KEYWORD] as string | undefined;
    const rules = parseRules(document[RULES_KEYWORD], file);
    const fieldMistake = ruleFieldMistake(document, rules) ?? (owner && ownerMistake(document, owner));
    if (fieldMistake) throw new ConfigError(`SCHEMAS: ${file}: ${fieldMistake}`);
    schemas.set(collection, {
      collection,
      file,
      document,
      ...(singular !== undefined && { singular }),
      indexes: (document[INDEX_KEYWORD] ?? []) as string[],
      unique,
      references: referencesOf(collection, document, (why) => fail(why)),
      rules,
      ...(owner !== undefined && { owner }),
      files,
      check(record) {
        return validate(record) ? [] : (validate.errors ?? []).map(violation);
      },
      ...(account && {
        account,
        checkPassword(password: unknown) {
          if ((validatePassword as typeof validate)(password)) return [];
          return ((validatePassword as typeof validate).errors ?? []).map(violation);
        },
      }),
    });
  }
  return schemas;
}

/** An Ajv error as a pointer to the field it concerns and a message. */
function violation(error: ErrorObject): SchemaViolation {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const child = params.missingProperty ?? params.additionalProperty;
  const pointer = child === undefined ? error.instancePath : `${error.instancePath}/${escapePointer(child)}`;
  const message =
    error.keyword === 'required'
      ? 'is required'
      : error.keyword === 'additionalProperties'
        ? 'is not a field this collection has'
        : (error.message ?? 'is invalid');
  return { pointer, message };
}

/** A dotted field path of plain names: indexes write it into SQL literally. */
const FIELD_PATH = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})*$' };

const UNIQUE_META_SCHEMA = {
  type: 'array',
  items: {
    anyOf: [
      FIELD_PATH,
      {
        type: 'object',
        required: ['field'],
        additionalProperties: false,
        properties: { field: FIELD_PATH, ignoreCase: { type: 'boolean' } },
      },
    ],
  },
};
