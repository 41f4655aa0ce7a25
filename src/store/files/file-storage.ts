/**
 * Where files' bytes live: a folder (./folder-storage.ts) or S3-compatible object storage
 * (./s3-storage.ts), behind one interface. Keys are made by restock, never by a client:
 * `<collection>/<name>` for a file, `<collection>/thumbs/<name>/<size>` for its thumbnails
 * (./file-keys.ts). An upload is staged in a local folder first (checked whole there: size,
 * digest, type, pixels), then put under its key before the record that names it commits;
 * until then no record names it, so nothing serves it.
 */
import type { Readable } from 'node:stream';
import type { Config } from '../../config/index.js';

/** The settings that say where files are kept (./open-file-storage.ts). */
export type FileStorageSettings = Pick<
  Config,
  'filesDir' | 'filesUrl' | 'filesS3Endpoint' | 'filesS3Region' | 'databaseUrl'
>;

/** Bytes `start` to `end`, both inclusive (an HTTP byte range). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** A stored object as a listing gives it. */
export interface StoredObject {
  readonly key: string;
  readonly size: number;
  readonly modified: Date;
}

export interface FileStorage {
  /** What it is, for logs and health: `folder /data/files`, `s3://bucket/prefix`. */
  readonly description: string;
  /** A local folder where uploads are staged before they are put (never served); whoever stages makes it. */
  readonly stagingDir: string;
  /** Moves the staged file at `path` to `key` (its bytes then readable under `key`); `path` is gone after. */
  put(key: string, path: string, type: string): Promise<void>;
  /** Stores `bytes` under `key` (a thumbnail, made in memory). */
  putBytes(key: string, bytes: Buffer, type: string): Promise<void>;
  /** The bytes of `key`, whole or `range`; undefined when there is no such object. */
  read(key: string, range?: ByteRange): Promise<Readable | undefined>;
  /** The object under `key`, or undefined. */
  stat(key: string): Promise<StoredObject | undefined>;
  /** Removes each of `keys` and everything under each `key + '/'`; a key already gone is no error. */
  remove(keys: readonly string[]): Promise<void>;
  /** Every object under `prefix` (all when empty), staged uploads excepted. */
  list(prefix?: string): AsyncIterable<StoredObject>;
  /** Closes connections; nothing may be asked after. */
  close(): Promise<void>;
}
