/**
 * Response compression: brotli or gzip, as the request's `Accept-Encoding` prefers, for
 * bodies of a compressible type from {@link COMPRESSION_THRESHOLD} bytes on (pages of
 * records, the OpenAPI document, problem documents that long). @fastify/compress does the
 * work, in an onSend hook it gives each route as the route is added, so this plugin comes
 * before every plugin that adds routes.
 *
 * Never compressed: the change feed (`text/event-stream`, which must leave event by event,
 * and which the feed writes to the socket itself, past every onSend hook), types that are
 * compressed already, and request bodies (a compressed body would pass the body limit
 * small and grow past it once read; clients send JSON as it is).
 */
import { constants } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { appendVary } from '../../vary.js';
import {
  COMPRESSION_THRESHOLD,
  compressible,
  DYNAMIC_BROTLI_QUALITY,
  DYNAMIC_GZIP_LEVEL,
  SYNC_COMPRESSION_LIMIT,
} from './encodings.js';

export { compressible, preferredEncoding } from './encodings.js';
export { type AssetFile, serveVersionedAssets, type VersionedAssets } from './static-assets.js';

export const compression = fp(
  async (app) => {
    await app.register(fastifyCompress, {
      encodings: ['br', 'gzip'],
      threshold: COMPRESSION_THRESHOLD,
      syncThreshold: SYNC_COMPRESSION_LIMIT,
      customTypes: compressible,
      brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY } },
      zlibOptions: { level: DYNAMIC_GZIP_LEVEL },
      globalDecompression: false,
    });
    // After @fastify/compress's own onRoute hook, so that this onSend runs after its one
    // and sees what it decided.
    app.addHook('onRoute', (route) => {
      if (route.compress === false) return;
      const onSend = Array.isArray(route.onSend) ? route.onSend : route.onSend ? [route.onSend] : [];
      route.onSend = [...onSend, varyOnEncoding];
    });
  },
  { name: 'restock-compression', fastify: '5.x' },
);

/**
 * `Vary: Accept-Encoding` on every response whose body could be compressed, whether this
 * one was or not (it was small, or the client asked for none): a shared cache must not
 * hand a brotli body to a client that cannot read it, nor keep serving the plain one to
 * all once the resource grows past the threshold. 304s too, as their 200 would.
 * @fastify/compress sets it only on what it compresses.
 */
function varyOnEncoding(
  _request: unknown,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
) {
  const type = reply.getHeader('content-type');
  const vary = String(reply.getHeader('vary') ?? '');
  if (
    (reply.statusCode === 304 || compressible(String(type ?? 'application/json'))) &&
    !/accept-encoding/i.test(vary)
  ) {
    appendVary(reply, 'Accept-Encoding');
  }
  done(null, payload);
}
