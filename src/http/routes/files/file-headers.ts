/**
 * The headers every stored file (or thumbnail) goes out with. Files are whatever clients
 * uploaded, served from the API's own origin, so none may run there: the type is the one
 * the content showed at upload and is to be believed (`nosniff`), a sandboxing policy
 * stops any script or plugin, and a type a browser would run or render as a page (HTML,
 * SVG, XML, scripts) is offered as a download rather than shown.
 */
import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply } from 'fastify';

/** What a file may do when shown: nothing of its own but inline styles (an image, a PDF, text). */
export const FILE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/**
 * Private: a file is seen under its record's rules, so no shared cache may keep it. A
 * stored file never changes under its name (a new upload gets a new one), so a browser
 * may keep it a while; it revalidates by ETag after.
 */
export const FILE_CACHE_CONTROL = 'private, max-age=3600';

/**
 * Types a browser shows without running anything: pictures other than SVG, sound, video,
 * PDF and plain text. Every other type is an attachment: HTML, SVG, XML of any kind,
 * JavaScript, and whatever a browser might yet learn to run.
 */
const SHOWN =
  /^(?:image\/(?:png|jpeg|gif|webp|avif|bmp|tiff|x-icon|vnd\.microsoft\.icon)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain)$/i;

/** `inline` for a type a browser only shows, `attachment` for any other. */
export function dispositionOf(type: string): 'inline' | 'attachment' {
  const bare = type.split(';', 1)[0]?.trim() ?? '';
  return SHOWN.test(bare) && !/xml/i.test(bare) ? 'inline' : 'attachment';
}

/** Sets the headers of a stored file named `name`, of `type`, with entity tag `etag`. */
export function fileHeaders(reply: FastifyReply, { name, type, etag }: { name: string; type: string; etag: string }) {
  reply
    .header('etag', etag)
    .header('cache-control', FILE_CACHE_CONTROL)
    .header('accept-ranges', 'bytes')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', FILE_POLICY)
    .header('content-disposition', contentDisposition(name, { type: dispositionOf(type) }))
    .header('content-type', type);
}
