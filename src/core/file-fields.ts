/**
 * File fields: a top-level field a schema marks `"x-file": { "maxBytes", "types",
 * "maxFiles", "thumbs" }` holds files. The record keeps each file's metadata
 * ({@link FileMeta}), never its bytes; the bytes live in the file storage
 * (src/store/files/) under a name restock makes. One file's value is its metadata, several
 * files' an array of them (`maxFiles` above 1).
 */
import { isObject } from './is-object.js';

/** One file field of a collection, with its bounds. */
export interface FileField {
  /** The field's name (a top-level field). */
  readonly name: string;
  /** The most bytes one file may have. */
  readonly maxBytes: number;
  /** The media types its files may have, as their content shows them; empty: any. */
  readonly types: readonly string[];
  /** How many files it holds: 1 holds one file's metadata, more an array of them. */
  readonly maxFiles: number;
  /** The thumbnail sizes images may be asked for (`?thumb=200x200`), as `WxH`. */
  readonly thumbs: readonly string[];
}

/** What a record holds of one file. */
export interface FileMeta {
  /** Its name in the download path's last segment: made by restock, never the client's path. */
  readonly name: string;
  /** Its media type, as its content shows it. */
  readonly type: string;
  readonly size: number;
  /** The SHA-256 of its bytes, in lowercase hex. */
  readonly sha256: string;
}

export const FILE_DEFAULTS = { maxBytes: 5 * 1024 * 1024, maxFiles: 1, thumbs: ['100x100'] } as const;

/** A thumbnail size: `WxH` crops to fill, `Wx0` or `0xH` keeps the aspect, `WxHf` fits inside. */
export const THUMB_SIZE = /^(\d{1,4})x(\d{1,4})(f?)$/;

/** The JSON Schema a declared `x-file` annotation must meet. */
export const FILE_META_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxBytes: { type: 'integer', minimum: 1, maximum: 2 ** 40 },
    types: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9.+-]+/[a-z0-9.+*-]+$' } },
    maxFiles: { type: 'integer', minimum: 1, maximum: 100 },
    thumbs: { type: 'array', maxItems: 20, items: { type: 'string', pattern: THUMB_SIZE.source } },
  },
};

/**
 * A name restock makes for a file (src/store/files/file-keys.ts): no separator and no
 * leading dot, so that joined to its collection's folder it never reaches outside it.
 */
export const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$/;

/** Whether `name` is one restock could have made: a record may come from elsewhere (an import, a hand edit). */
export function isFileName(name: string): boolean {
  return FILE_NAME.test(name);
}

/** A file's metadata as the record's schema checks it. */
const META_VALUE = {
  type: 'object',
  required: ['name', 'type', 'size', 'sha256'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: FILE_NAME.source },
    type: { type: 'string', maxLength: 255 },
    size: { type: 'integer', minimum: 0 },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
};

/** The file fields `document` (a collection's schema) declares; `fail` says what is wrong. */
export function fileFieldsOf(document: Record<string, unknown>, fail: (why: string) => Error): FileField[] {
  const properties = isObject(document.properties) ? document.properties : {};
  const fields: FileField[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    if (!isObject(schema) || schema['x-file'] === undefined) continue;
    const declared = schema['x-file'] as Partial<FileField>;
    if (schema.type !== undefined || schema.properties !== undefined || schema.items !== undefined) {
      throw fail(`${name}: a field with x-file holds files' metadata, so it declares no type of its own`);
    }
    const thumbs = declared.thumbs ?? FILE_DEFAULTS.thumbs;
    for (const size of thumbs) {
      const [, width, height] = THUMB_SIZE.exec(size) ?? [];
      if (Number(width) === 0 && Number(height) === 0) throw fail(`${name}: the thumbnail size ${size} is empty`);
    }
    fields.push({
      name,
      maxBytes: declared.maxBytes ?? FILE_DEFAULTS.maxBytes,
      types: declared.types ?? [],
      maxFiles: declared.maxFiles ?? FILE_DEFAULTS.maxFiles,
      thumbs,
    });
  }
  return fields;
}

/** `document` with each file field's schema the one its stored value meets: metadata, or an array of it. */
export function withFileSchemas(
  document: Record<string, unknown>,
  fields: readonly FileField[],
): Record<string, unknown> {
  if (fields.length === 0) return document;
  const properties = { ...(document.properties as Record<string, unknown>) };
  for (const field of fields) {
    const value = field.maxFiles === 1 ? META_VALUE : { type: 'array', maxItems: field.maxFiles, items: META_VALUE };
    properties[field.name] = { ...(properties[field.name] as object), ...value };
  }
  return { ...document, properties };
}

/** The files a record's value of a file field holds: none, one or several. */
export function filesIn(value: unknown): FileMeta[] {
  if (Array.isArray(value)) return value.filter(isObject) as unknown as FileMeta[];
  return isObject(value) ? [value as unknown as FileMeta] : [];
}

/** The names of every file `fields` (a record's fields) holds in `files`. */
export function fileNamesOf(fields: Record<string, unknown>, files: readonly FileField[]): string[] {
  return files.flatMap((field) => filesIn(fields[field.name]).map((file) => file.name));
}

/** The value a file field stores for `files`: the one file's metadata, an array, or nothing. */
export function fileValue(field: FileField, files: readonly FileMeta[]): FileMeta | FileMeta[] | undefined {
  if (field.maxFiles > 1) return files.length === 0 ? undefined : [...files];
  return files[0];
}
