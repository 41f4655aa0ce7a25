// A write whose file field (`x-file`) holds bytes goes as multipart/form-data, the other fields in `record`.
import type { FilesOf } from './stored.js';

/** What a record holds of one file. */
export interface FileMeta {
  readonly name: string;
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
}

type Bytes = Blob | ArrayBuffer | ArrayBufferView;

/** A file to send: a `Blob`, bytes, or bytes with a name and type. */
export type Upload = Bytes | { data: Bytes; name?: string; type?: string };

type Accepting<V> = V extends readonly (infer E)[] ? (E | Upload | null)[] : V | Upload;

/** What a write `W` of `T` sends: its file fields take uploads too. */
export type WithUploads<W, T> = [FilesOf<T>] extends [never]
  ? W
  : { [K in keyof W]: K extends FilesOf<T> ? Accepting<W[K]> : W[K] };

const isBytes = (value: unknown): value is Bytes =>
  (typeof Blob !== 'undefined' && value instanceof Blob) || value instanceof ArrayBuffer || ArrayBuffer.isView(value);

function isUpload(value: unknown): value is Upload {
  return isBytes(value) || (typeof value === 'object' && value !== null && isBytes((value as { data?: unknown }).data));
}

/** `fields`, or a form when a field holds an upload. */
export function bodyOf(fields: object): object | FormData {
  const record: Record<string, unknown> = {};
  const parts: [string, Upload][] = [];
  for (const [field, value] of Object.entries(fields)) {
    const many = Array.isArray(value);
    const uploads = (many ? value : [value]).filter(isUpload);
    parts.push(...uploads.map((upload): [string, Upload] => [field, upload]));
    // An array keeps the files it names beside the new ones.
    if (many) record[field] = value.filter((one) => !isUpload(one));
    else if (uploads.length === 0) record[field] = value;
  }
  if (parts.length === 0) return fields;
  const form = new FormData();
  form.append('record', JSON.stringify(record));
  for (const [field, upload] of parts) form.append(field, ...blobOf(upload, field));
  return form;
}

type Parts = ConstructorParameters<typeof Blob>[0];

function blobOf(upload: Upload, field: string): [Blob, string] {
  const { data, name, type } = isBytes(upload) ? { data: upload } : upload;
  const blob = data instanceof Blob && type === undefined ? data : new Blob([data] as Parts, { type: type ?? '' });
  return [blob, name ?? (data as Partial<File>).name ?? field];
}

/** Which of the field's files (default the first), a thumbnail size (`100x100`), a file token. */
export interface FileUrlOptions {
  name?: string;
  thumb?: string;
  token?: string;
}

/** The path of a record's file under `base` (`/products/7/`), if the field holds one. */
export function filePath(base: string, record: object, field: string, options: FileUrlOptions): string | undefined {
  const value = (record as Record<string, unknown>)[field];
  const files = (Array.isArray(value) ? value : [value]) as (FileMeta | null | undefined)[];
  const name = options.name ?? files.find((file) => file?.name)?.name;
  if (name === undefined) return undefined;
  const query = new URLSearchParams();
  if (options.thumb) query.set('thumb', options.thumb);
  if (options.token) query.set('token', options.token);
  const search = `${query}` ? `?${query}` : '';
  return `${base}files/${encodeURIComponent(field)}/${encodeURIComponent(name)}${search}`;
}
