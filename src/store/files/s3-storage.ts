/**
 * Files in S3-compatible object storage (`FILES_URL=s3://bucket/prefix`), as many instances
 * on one PostgreSQL need: each key an object under the prefix. Uploads are staged in a local
 * folder (under the system's temporary folder), then streamed to the bucket; the staged file
 * is removed once the bucket has it. Credentials come from the AWS
 * SDK's default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, a profile, a role).
 */
import { createReadStream, lstatSync, mkdirSync, mkdtempSync } from 'node:fs';
import { rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { type Config, ConfigError } from '../../config/index.js';
import type { ByteRange, FileStorage, StoredObject } from './file-storage.js';

/** The settings S3 storage reads (./open-file-storage.ts passes them all). */
export type S3Settings = Pick<Config, 'filesUrl' | 'filesS3Endpoint' | 'filesS3Region'>;

/** The most keys one DeleteObjects takes. */
const DELETE_BATCH = 1000;

/** Connections to the bucket at once (each download in flight holds one). */
const MAX_SOCKETS = 1024;

/** A logger that says nothing: restock logs what matters itself, the SDK's own lines would not be JSON. */
const QUIET = { debug() {}, info() {}, warn() {}, error() {}, trace() {} };

/** The bucket and key prefix (`''`, or ending in `/`) of `s3://bucket/prefix`. */
function parseS3Url(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!match?.[1]) throw new ConfigError(`FILES_URL must be s3://BUCKET or s3://BUCKET/PREFIX, got "${url}"`);
  const path = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: match[1], prefix: path === '' ? '' : `${path}/` };
}

/**
 * Whether `error` is the SDK's answer for an object that is not there (a HEAD's 404 has no
 * body to name it, so the SDK calls it NotFound); a missing bucket (NoSuchBucket) is an error.
 */
function isMissing(error: unknown): boolean {
  const { name } = error as { name?: string };
  return name === 'NoSuchKey' || name === 'NotFound';
}

/**
 * The folder uploads are staged in: `restock-uploads-<uid>` in the system's temporary folder,
 * shared by this user's processes on the machine, so that any one's sweep removes what a
 * killed one left. It is used only when it is a real folder of this user's that no one else
 * may enter: where anyone may write, a folder (or link) someone else made first would hand
 * them the uploads. Otherwise (or on Windows), a new folder of this storage's own.
 */
function stagingFolder(): { path: string; own: boolean } {
  const uid = process.getuid?.();
  if (uid !== undefined) {
    const shared = join(tmpdir(), `restock-uploads-${uid}`);
    try {
      mkdirSync(shared, { mode: 0o700 });
    } catch {
      // There already (checked below), or not to be made (a folder of its own then).
    }
    const stats = lstatSync(shared, { throwIfNoEntry: false });
    if (stats?.isDirectory() && stats.uid === uid && (stats.mode & 0o077) === 0) return { path: shared, own: false };
  }
  return { path: mkdtempSync(join(tmpdir(), 'restock-uploads-')), own: true };
}

export function s3Storage(settings: S3Settings): FileStorage {
  const { bucket, prefix } = parseS3Url(settings.filesUrl);
  const custom = settings.filesS3Endpoint !== '';
  // The SDK warns on stderr, once, about Node.js lines it will stop supporting; restock
  // says which lines it runs on (package.json's engines), so that line would only be noise.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    region: settings.filesS3Region,
    logger: QUIET,
    // Each download holds a connection to the bucket while its client reads: the SDK's 50
    // would queue the 51st behind the slowest readers (and warn on the console).
    requestHandler: {
      connectionTimeout: 5000,
      httpAgent: { maxSockets: MAX_SOCKETS },
      httpsAgent: { maxSockets: MAX_SOCKETS },
      logger: QUIET,
    },
    ...(custom
      ? {
          endpoint: settings.filesS3Endpoint,
          forcePathStyle: true,
          // Not every S3-compatible server reads the SDK's newer checksum trailers (aws-chunked
          // bodies); a checksum is then sent only where the API asks for one. Uploads are
          // digested (sha256) while staged, so nothing goes unchecked.
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
  });
  const staging = stagingFolder();
  const stagingDir = staging.path;
  const full = (key: string) => prefix + key;

  /** Every object under `under` (a full key prefix), a page at a time. */
  async function* pages(under: string): AsyncGenerator<StoredObject[]> {
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: under, ContinuationToken: token }),
      );
      const objects: StoredObject[] = [];
      for (const { Key, Size, LastModified } of page.Contents ?? []) {
        if (Key === undefined || !Key.startsWith(prefix)) continue;
        objects.push({ key: Key.slice(prefix.length), size: Size ?? 0, modified: LastModified ?? new Date(0) });
      }
      yield objects;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Deletes `keys` (restock's, without the prefix); one already gone is no error. */
  async function deleteKeys(keys: readonly string[]): Promise<void> {
    for (let at = 0; at < keys.length; at += DELETE_BATCH) {
      const batch = keys.slice(at, at + DELETE_BATCH);
      const answer = await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: batch.map((key) => ({ Key: full(key) })), Quiet: true },
        }),
      );
      const failed = (answer.Errors ?? []).filter((error) => error.Code !== 'NoSuchKey');
      if (failed.length > 0) {
        const [first] = failed;
        throw new Error(
          `S3 could not delete ${failed.length} object(s): ${first?.Key} ${first?.Code} ${first?.Message}`,
        );
      }
    }
  }

  const storage: FileStorage = {
    description: settings.filesUrl,
    stagingDir,
    async put(key, path, type) {
      const { size } = await stat(path);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: full(key),
          Body: createReadStream(path),
          ContentLength: size,
          ...(type !== '' ? { ContentType: type } : {}),
        }),
      );
      await unlink(path);
    },
    async putBytes(key, bytes, type) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: full(key),
          Body: bytes,
          ContentLength: bytes.length,
          ...(type !== '' ? { ContentType: type } : {}),
        }),
      );
    },
    async read(key, range?: ByteRange): Promise<Readable | undefined> {
      try {
        const answer = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: full(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        return answer.Body as Readable;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async stat(key) {
      try {
        const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: full(key) }));
        return { key, size: answer.ContentLength ?? 0, modified: answer.LastModified ?? new Date(0) };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async remove(keys) {
      if (keys.length === 0) return;
      await deleteKeys(keys);
      // A folder key's objects (a file's thumbnails), a page at a time: the first page is
      // listed again after each delete, as no server's continuation token need outlive the
      // keys it points past.
      for (const key of keys) {
        for (;;) {
          const first = await pages(`${full(key)}/`).next();
          if (first.done || first.value.length === 0) break;
          await deleteKeys(first.value.map((object) => object.key));
        }
      }
    },
    async *list(under = '') {
      const folder = under === '' || under.endsWith('/') ? under : `${under}/`;
      for await (const page of pages(full(folder))) yield* page;
    },
    async close() {
      client.destroy();
      // A shared staging folder may hold other processes' uploads in flight.
      if (staging.own) await rm(stagingDir, { recursive: true, force: true });
    },
  };
  return storage;
}
