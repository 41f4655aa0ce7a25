/**
 * An upload's type, read from its content: a binary format by its signature (file-type),
 * else text. What the client says (its part's `Content-Type`, its name's extension) must
 * agree with the content, so that a PNG named `.jpg` or HTML sent as `image/png` is refused
 * rather than stored under a type a browser would trust. An image's size in pixels is read
 * from its header (sharp), so that a decompression bomb is refused before anything decodes it.
 * Both are imported at the first upload, not at the start: together they were more than half
 * a second of a start that serves no file (docs/performance.md, Start-up and footprint).
 */
import { extname } from 'node:path';
import mime from 'mime-types';
import type { FileField } from '../../core/file-fields.js';
import { FileRefusal } from './file-refusal.js';

/** What the client said of a file: its name and its part's `Content-Type`. */
export interface SentFile {
  readonly filename: string;
  readonly declaredType: string;
}

export interface ContentType {
  readonly mime: string;
  readonly extension: string | undefined;
}

/** The images sharp opens: the only ones given thumbnails, and held to the pixel limit. */
export const IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
  'image/heic',
  'image/heif',
]);

const NO_CLAIM = 'application/octet-stream';
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/x-png': 'image/png',
  'text/xml': 'application/xml',
};
const TEXTUAL = /^(text\/|application\/(json|xml|javascript|ecmascript)$|[^/]+\/[^;]*\+(xml|json)$)/;

/** `type` lower-cased, without parameters, its usual alias resolved; '' for none. */
function normal(type: string): string {
  const bare = type.split(';')[0]?.trim().toLowerCase() ?? '';
  return ALIASES[bare] ?? bare;
}

/** Whether `head` (a file's first bytes) reads as UTF-8 text: no NUL, no broken sequence but at its cut end. */
function isText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let cut = 0; cut < 4 && cut <= head.length; cut += 1) {
    try {
      decoder.decode(head.subarray(0, head.length - cut));
      return true;
    } catch {}
  }
  return false;
}

/** Whether `type` is among `accepted` (`image/png`, or `image/*` for every image). */
function accepts(accepted: readonly string[], type: string): boolean {
  return (
    accepted.length === 0 ||
    accepted.some((one) => one === type || (one.endsWith('/*') && type.startsWith(one.slice(0, -1))))
  );
}

/**
 * Whether the media type `claimed` may name content of `sniffed`'s kind. Registries differ
 * in the names of some (`audio/mp4` and file-type's `audio/x-m4a` for the same .m4a), so a
 * type whose extensions include the content's names it too.
 */
function names(claimed: string, sniffed: { mime: string; ext: string }): boolean {
  return claimed === normal(sniffed.mime) || (mime.extensions[claimed] ?? []).includes(sniffed.ext);
}

/** The type of a file whose first bytes are `head`, as `field` takes it; throws a refusal when it disagrees with `sent`. */
export async function typeOfContent(field: FileField, head: Buffer, sent: SentFile): Promise<ContentType> {
  const declared = normal(sent.declaredType) === NO_CLAIM ? '' : normal(sent.declaredType);
  const nameExtension = extname(sent.filename).slice(1).toLowerCase();
  const named = nameExtension === '' ? '' : normal(mime.lookup(nameExtension) || '');
  const refuse = (why: string) => FileRefusal.typeRefused(field, why);
  let type: ContentType;
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(head);
  if (sniffed) {
    const content = normal(sniffed.mime);
    if (declared !== '' && !names(declared, sniffed)) {
      throw refuse(`its content is ${content}, not the ${declared} its part declares`);
    }
    if (named !== '' && nameExtension !== sniffed.ext && !names(named, sniffed)) {
      throw refuse(`its content is ${content}, which its name's .${nameExtension} contradicts`);
    }
    type = { mime: content, extension: sniffed.ext };
  } else {
    const text = isText(head);
    const claimed = declared || named || (text ? 'text/plain' : NO_CLAIM);
    if (text ? !TEXTUAL.test(claimed) : claimed !== NO_CLAIM) {
      throw refuse(`its content is ${text ? 'text' : 'of no known type'}, not the ${claimed} it claims`);
    }
    type = { mime: claimed, extension: mime.extension(claimed) || undefined };
  }
  if (!accepts(field.types, type.mime))
    throw refuse(`takes ${field.types.join(', ')}; this file's content is ${type.mime}`);
  return type;
}

/** Refuses an image at `path` of more than `maxPixels` pixels (all its frames), or whose header cannot be read. */
export async function checkImage(path: string, type: ContentType, maxPixels: number, field: FileField): Promise<void> {
  if (!IMAGE_TYPES.has(type.mime)) return;
  const { default: sharp } = await import('sharp');
  let pixels: number;
  try {
    const { width, height, pages } = await sharp(path, { limitInputPixels: false }).metadata();
    pixels = width * height * (pages ?? 1);
  } catch {
    throw FileRefusal.imageTooLarge(field, `cannot be read as the ${type.mime} image its content begins as`);
  }
  if (!(pixels > 0) || pixels > maxPixels) {
    throw FileRefusal.imageTooLarge(field, `an image may have at most ${maxPixels} pixels; this one has ${pixels}`);
  }
}
