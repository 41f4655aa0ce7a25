/**
 * Files in the document. A file field declares no type of its own in the operator's schema
 * (`x-file` stands for it): the record components show what a record holds of it, each
 * file's metadata or an array of them (./record-components.ts), and a merge patch takes what
 * keeps or removes a file (here). The creates and merges of a collection with file fields
 * take `multipart/form-data` beside JSON: a `record` part holding the JSON fields, and a
 * binary part per file, named after its field.
 */
import type { Collection } from '../../core/collection.js';
import type { FileField } from '../../core/file-fields.js';
import type { ProblemKind } from '../problem-types.js';

/** A JSON Schema as plain data, for reading the parts of an operator's schema (./record-components.ts too). */
export interface JsonSchema {
  [keyword: string]: unknown;
  properties?: Record<string, unknown>;
  required?: string[];
  description?: string;
}

/** What a body with files can break beyond a JSON body's. */
export const UPLOAD_PROBLEMS: readonly ProblemKind[] = [
  'incomplete-upload',
  'file-too-large',
  'file-type-refused',
  'too-many-files',
  'image-too-large',
  'file-not-uploaded',
];

/** A file the record holds, named by its `name` alone in place of its metadata. */
const HELD_NAME = { type: 'string', description: 'The name of a file the record holds, which it keeps.' };
const NULL = { type: 'null' };

/**
 * A merge patch's file fields: a file the record holds (its metadata, or its name), or null
 * to remove it; in an array, an element set to null removes that file.
 */
export function withFilePatches(patch: JsonSchema, sent: JsonSchema, files: readonly FileField[]): JsonSchema {
  if (files.length === 0 || !patch.properties) return patch;
  const properties = { ...patch.properties };
  for (const { name, maxFiles } of files) {
    const value = sent.properties?.[name] as JsonSchema | undefined;
    if (!value) continue;
    properties[name] =
      maxFiles === 1
        ? { anyOf: [value, HELD_NAME, NULL] }
        : { anyOf: [{ ...value, items: { anyOf: [value.items, HELD_NAME, NULL] } }, NULL] };
  }
  return { ...patch, properties };
}

interface MediaType {
  schema?: unknown;
  encoding?: Record<string, { contentType: string }>;
}
type Operation = { requestBody?: { content: Record<string, MediaType> } };
interface Document {
  paths?: Record<string, Partial<Record<'post' | 'put' | 'patch', Operation>>>;
}

/** Adds `multipart/form-data` to the create and merge bodies of each collection with file fields. */
export function documentUploads(document: object, collections: readonly Collection[]): void {
  const { paths } = document as Document;
  for (const collection of collections) {
    if (collection.files.length === 0) continue;
    const item = paths?.[`/${collection.singular}/{id}/`];
    for (const operation of [paths?.[`/${collection.singular}/`]?.post, item?.put, item?.patch]) {
      const content = operation?.requestBody?.content;
      const json = content?.['application/json']?.schema;
      if (content && json) content['multipart/form-data'] = multipart(json, collection.files);
    }
  }
}

/** The multipart body beside a JSON body of schema `json`: a `record` part holding it, and a part per file field. */
function multipart(json: unknown, files: readonly FileField[]): MediaType {
  const properties: Record<string, unknown> = {
    record: {
      ...(json as object),
      description: 'The fields, as JSON text (what a JSON body would hold). They may come as form fields instead.',
    },
  };
  const encoding: Record<string, { contentType: string }> = { record: { contentType: 'application/json' } };
  for (const field of files) {
    const types = field.types.length > 0 ? field.types.join(', ') : 'any type';
    const limits = `Of ${types}, at most ${field.maxBytes} bytes${field.maxFiles === 1 ? '' : ' each'}`;
    const binary = { type: 'string', format: 'binary' };
    properties[field.name] =
      field.maxFiles === 1
        ? { ...binary, description: `${limits}: the file, which replaces the one the record holds.` }
        : {
            type: 'array',
            maxItems: field.maxFiles,
            items: binary,
            description: `${limits}: one part per file, added to those the record keeps (at most ${field.maxFiles} in all).`,
          };
    if (field.types.length > 0) encoding[field.name] = { contentType: field.types.join(', ') };
  }
  return { schema: { type: 'object', properties }, encoding };
}
