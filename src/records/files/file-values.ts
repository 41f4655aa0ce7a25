/**
 * A write's file fields: what a create or a change stores in each, from the files uploaded
 * with it and what its JSON says. JSON never names a new file (the metadata a record holds
 * is made here, from the bytes); it may keep files the record holds, or remove them with
 * `null` (the field, or one element of an array). A change's values are resolved against
 * the record as it is, under the write's lock (WriteConditions.resolve).
 */
import { type FileField, type FileMeta, filesIn, fileValue } from '../../core/file-fields.js';
import { isObject } from '../../core/is-object.js';
import type { StoredRecord } from '../../store/store.js';
import { FileRefusal } from './file-refusal.js';

type Fields = Record<string, unknown>;

/** An uploaded file's metadata, with the field it was sent for. */
export interface Upload {
  readonly field: FileField;
  readonly meta: FileMeta;
}

function uploadsOf(field: FileField, uploads: readonly Upload[]): FileMeta[] {
  return uploads.filter((upload) => upload.field === field).map((upload) => upload.meta);
}

/** Whether a file field's JSON value removes all it holds (or, in a create, sets nothing). */
function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || (Array.isArray(value) && value.every((one) => one === null));
}

/**
 * A create's `fields` with its file fields set from `uploads`: a file field whose JSON
 * value is anything but empty is refused (it would name a file no upload brought).
 */
export function createdFiles(files: readonly FileField[], fields: Fields, uploads: readonly Upload[]): Fields {
  if (files.length === 0) return fields;
  const result = { ...fields };
  for (const field of files) {
    if (!isEmpty(result[field.name])) throw FileRefusal.notUploaded(field);
    delete result[field.name];
    const sent = uploadsOf(field, uploads);
    if (sent.length > field.maxFiles) throw FileRefusal.tooMany(field);
    const value = fileValue(field, sent);
    if (value !== undefined) result[field.name] = value;
  }
  return result;
}

/**
 * How a change's patch is resolved against the record as it is, when it touches a file
 * field (by JSON or by upload); undefined when it touches none. Uploads replace a single
 * file and join an array's; JSON keeps files the record holds (by name) and drops the rest
 * it sets to null.
 */
export function filesResolver(
  files: readonly FileField[],
  patch: Fields,
  uploads: readonly Upload[],
): ((current: StoredRecord, patch: object) => object) | undefined {
  const touched = files.filter((field) => Object.hasOwn(patch, field.name) || uploadsOf(field, uploads).length > 0);
  if (touched.length === 0) return undefined;
  return (current, written) => {
    const held = JSON.parse(current.data) as Fields;
    const resolved: Fields = { ...(written as Fields) };
    for (const field of touched) {
      const holds = filesIn(held[field.name]);
      const added = uploadsOf(field, uploads);
      const kept = Object.hasOwn(resolved, field.name)
        ? keptFiles(field, resolved[field.name], holds)
        : field.maxFiles === 1 && added.length > 0
          ? []
          : holds;
      const all = [...kept, ...added];
      if (all.length > field.maxFiles) throw FileRefusal.tooMany(field);
      resolved[field.name] = fileValue(field, all) ?? null;
    }
    return resolved;
  };
}

/** The files of `holds` a JSON value keeps: each element (or the value) names one held, or is null. */
function keptFiles(field: FileField, value: unknown, holds: readonly FileMeta[]): FileMeta[] {
  if (value === null) return [];
  const named = Array.isArray(value) ? value : [value];
  const kept: FileMeta[] = [];
  for (const one of named) {
    if (one === null) continue;
    const name = isObject(one) ? one.name : one;
    const file = holds.find((held) => held.name === name);
    if (!file || kept.includes(file)) throw FileRefusal.notUploaded(field);
    kept.push(file);
  }
  return kept;
}
