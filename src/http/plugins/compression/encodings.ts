/**
 * What restock compresses and how hard: shared by the plugin that compresses responses as
 * they are sent (./index.ts) and the assets compressed once and kept (./static-assets.ts).
 */
import { constants } from 'node:zlib';

/** The content codings restock sends, best first. */
export type Encoding = 'br' | 'gzip';
const ENCODINGS: readonly Encoding[] = ['br', 'gzip'];

/**
 * Bodies below this many bytes go out as they are: with the headers they fit in one TCP
 * segment anyway (a single record usually does), so compressing them costs CPU and saves
 * no round trip.
 */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Levels for responses made per request (pages of records, the document). Brotli's default
 * quality, 11, took 20 ms of CPU for a page of 100 records (17 KB) here; quality 4 takes
 * 0.2 ms for 1.3 KB instead of 1.0 KB (bench/compression-cost.ts measures it).
 */
export const DYNAMIC_BROTLI_QUALITY = 4;
export const DYNAMIC_GZIP_LEVEL = 6;

/**
 * Bodies up to this size are compressed in one synchronous call rather than through a zlib
 * stream. A stream per response costs more than the compression itself (a page of 100
 * records, 17 KB: 1.3 ms more CPU per request through a stream, 0.2 ms in one call), and
 * @fastify/compress's default on 2 cores is 8 KiB. 64 KiB at brotli 4 holds the event loop
 * for about a millisecond; larger bodies still stream.
 */
export const SYNC_COMPRESSION_LIMIT = 64 * 1024;

/**
 * Levels for assets that are compressed once per process and then served from memory (the
 * reference page's and the console's files): the cost is paid once, off the event loop.
 * Brotli 9 rather than 11: 11 took 3.8 s for swagger-ui's bundle for 9% fewer bytes.
 */
export const STATIC_BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } };
export const STATIC_GZIP_OPTIONS = { level: 9 };

/**
 * Types worth compressing: text (never `text/event-stream`, whose events must leave one by
 * one), JSON and problem documents, YAML, JavaScript, XML and SVG. Not images or archives,
 * which are compressed already.
 */
const COMPRESSIBLE =
  /^(?:text\/(?!event-stream)|application\/(?:javascript|(?:x-)?yaml|xml)|image\/svg\+xml)|[+/](?:json|xml)\s*(?:;|$)/i;

export function compressible(contentType: string): boolean {
  return COMPRESSIBLE.test(contentType);
}

/**
 * The coding a request's `Accept-Encoding` prefers among those restock sends (brotli on a
 * tie), or undefined for none: no header, `identity` only, or every coding at q=0.
 */
export function preferredEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const entry of acceptEncoding.toLowerCase().split(',')) {
    const [name = '', ...params] = entry.split(';').map((part) => part.trim());
    const q = params.find((param) => param.startsWith('q='));
    weights.set(name, q ? Number(q.slice(2)) : 1);
  }
  const weight = (encoding: Encoding) => weights.get(encoding) ?? weights.get('*') ?? 0;
  let best: Encoding | undefined;
  for (const encoding of ENCODINGS) {
    // `> 0` is false for NaN too: a malformed weight counts as a refusal.
    if (weight(encoding) > 0 && (!best || weight(encoding) > weight(best))) best = encoding;
  }
  return best;
}
