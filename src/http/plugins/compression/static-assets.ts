/**
 * A page's scripts, styles and icons, held in memory and served under a versioned path,
 * `<prefix><version>/<name>`, where the version is a hash of every file's bytes: a new
 * release or a changed file gives a new URL, so these responses may be cached for a year
 * and never asked for again (`immutable`). One version for the whole set rather than one
 * per file, so that a module's relative imports (`./auth.js`) resolve to the same version.
 *
 * Each file is compressed once per coding, on its first request, off the event loop (zlib's
 * asynchronous calls run on libuv's threads) and at a higher level than per-request
 * compression affords; the bytes are then kept. The same files can also be served at their
 * unversioned path, revalidated on every use, for pages that still name them so.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appendVary } from '../../vary.js';
import {
  compressible,
  type Encoding,
  preferredEncoding,
  STATIC_BROTLI_OPTIONS,
  STATIC_GZIP_OPTIONS,
} from './encodings.js';

const COMPRESS: Record<Encoding, (bytes: Buffer) => Promise<Buffer>> = {
  br: (bytes) => promisify(brotliCompress)(bytes, STATIC_BROTLI_OPTIONS),
  gzip: (bytes) => promisify(gzip)(bytes, STATIC_GZIP_OPTIONS),
};

/** A year: what RFC 9111 caches and browsers accept as "forever". */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The unversioned path: may be stored, but checked (a 304 by ETag) before each use. */
const REVALIDATE = 'public, no-cache';

export interface AssetFile {
  name: string;
  type: string;
  bytes: Buffer;
}

export interface VersionedAssets {
  version: string;
  /** The path of a file's versioned URL, `<prefix><version>/<name>`. */
  pathOf(name: string): string;
}

interface HeldAsset extends AssetFile {
  /** A strong validator per representation: the file's hash, and the coding's name after it. */
  hash: string;
  encoded: Map<Encoding, Promise<Buffer>>;
}

/**
 * Serves `files` in `scope` at `<prefix><version>/<name>` (immutable) and, with
 * `unversioned`, at `<prefix><name>` too (revalidated). The routes are GET and HEAD only
 * and left out of the OpenAPI document.
 */
export function serveVersionedAssets(
  scope: FastifyInstance,
  { prefix, files, unversioned = false }: { prefix: string; files: AssetFile[]; unversioned?: boolean },
): VersionedAssets {
  const held: HeldAsset[] = files.map((file) => ({ ...file, hash: digest([file.bytes]), encoded: new Map() }));
  const version = digest(held.map((file) => Buffer.from(`${file.name}\0${file.hash}\0`)));
  for (const asset of held) {
    const routes: [string, string][] = [[`${prefix}${version}/${asset.name}`, IMMUTABLE]];
    if (unversioned) routes.push([`${prefix}${asset.name}`, REVALIDATE]);
    for (const [url, cacheControl] of routes) {
      scope.route({
        method: 'GET',
        url,
        schema: { hide: true },
        // The body is encoded here, once; @fastify/compress must not do it again per request.
        compress: false,
        handler: (request, reply) => send(request, reply, asset, cacheControl),
      });
    }
  }
  return { version, pathOf: (name) => `${prefix}${version}/${name}` };
}

async function send(request: FastifyRequest, reply: FastifyReply, asset: HeldAsset, cacheControl: string) {
  const encoding = compressible(asset.type) ? preferredEncoding(request.headers['accept-encoding']) : undefined;
  const etag = `"${asset.hash}${encoding ? `-${encoding}` : ''}"`;
  reply.header('cache-control', cacheControl).header('etag', etag).type(asset.type);
  if (compressible(asset.type)) appendVary(reply, 'Accept-Encoding');
  if (matches(request.headers['if-none-match'], asset.hash)) return reply.code(304).send();
  if (!encoding) return reply.send(asset.bytes);
  let encoded = asset.encoded.get(encoding);
  if (!encoded) {
    encoded = COMPRESS[encoding](asset.bytes);
    asset.encoded.set(encoding, encoded);
    // A failure is not kept: the next request tries again.
    encoded.catch(() => asset.encoded.delete(encoding));
  }
  return reply.header('content-encoding', encoding).send(await encoded);
}

/**
 * Whether If-None-Match names any representation of this file: by weak comparison, as
 * RFC 9110 has it for GET, so a tag from the brotli body validates the plain one too.
 */
function matches(ifNoneMatch: string | undefined, hash: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some(
    (tag) =>
      tag
        .trim()
        .replace(/^W\//, '')
        .replace(/-(?:br|gzip)"$/, '"') === `"${hash}"`,
  );
}

function digest(parts: Buffer[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('base64url').slice(0, 16);
}
