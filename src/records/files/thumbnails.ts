/**
 * Thumbnails of images (`?thumb=WxH`), made with sharp the first time one is asked for and
 * kept in the file storage beside the file (`thumbKey`), so that every later request, on
 * any instance, is a read. Only the sizes the field lists are made, so the storage holds at
 * most that many per file. Requests that find the same thumbnail missing at once share one
 * make (a map of promises), and few are made at a time: each holds an image's pixels in
 * memory and a core busy. sharp is imported at the first thumbnail made, not at the start.
 */
import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import { THUMB_SIZE } from '../../core/file-fields.js';
import { thumbKey } from '../../store/files/file-keys.js';
import type { StoredObject } from '../../store/files/file-storage.js';
import { Refusal } from '../refusal.js';
import { IMAGE_TYPES } from './file-types.js';
import type { FoundFile } from './find-file.js';

/** A thumbnail keeps its image's format where browsers show it; the others become PNG. */
const KEPT: Readonly<Record<string, 'jpeg' | 'png' | 'webp'>> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
};

/** Thumbnails waiting for their turn past this many are refused: each waiting request holds a connection. */
const MAX_WAITING = 256;

export interface ThumbnailOptions {
  /** The most pixels an image may have to be opened (FILES_MAX_PIXELS). */
  readonly maxPixels: number;
  /** How many thumbnails are made at once; by default one per core. */
  readonly maxAtOnce?: number;
}

/** A stored thumbnail: where it is, its type, and what the storage says of it. */
export interface Thumbnail {
  readonly key: string;
  readonly type: string;
  readonly stored: StoredObject;
}

export class Thumbnails {
  readonly #maxPixels: number;
  readonly #maxAtOnce: number;
  readonly #making = new Map<string, Promise<StoredObject>>();
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(options: ThumbnailOptions) {
    this.#maxPixels = options.maxPixels;
    this.#maxAtOnce = Math.max(1, options.maxAtOnce ?? availableParallelism());
  }

  /** The thumbnail of `size` of `found`, made and stored first if it is not yet. */
  async of(found: FoundFile, collection: string, size: string): Promise<Thumbnail> {
    const { field, file, storage } = found;
    if (!field.thumbs.includes(size)) {
      const listed = field.thumbs.length === 0 ? 'none' : field.thumbs.join(', ');
      throw invalidThumbnail(`${field.name} has no thumbnail of size ${JSON.stringify(size)}; its sizes: ${listed}.`);
    }
    if (!IMAGE_TYPES.has(file.type)) {
      throw invalidThumbnail(`${file.name} is ${file.type}, not an image a thumbnail can be made of.`);
    }
    const key = thumbKey(collection, file.name, size);
    const type = thumbnailType(file.type);
    const stored = await storage.stat(key);
    if (stored) return { key, type, stored };
    let making = this.#making.get(key);
    if (!making) {
      making = this.#turn(async () => {
        // Another request may have stored it while this one waited for its turn.
        const already = await storage.stat(key);
        if (already) return already;
        const original = await storage.read(found.key);
        if (!original) throw new Error(`${found.key} is named by a record but not stored`);
        await storage.putBytes(key, await this.#make(original, size, type), type);
        const made = await storage.stat(key);
        if (!made) throw new Error(`${key} was stored but cannot be found`);
        return made;
      }).finally(() => this.#making.delete(key));
      this.#making.set(key, making);
    }
    return { key, type, stored: await making };
  }

  async #make(original: Readable, size: string, type: string): Promise<Buffer> {
    const [, w, h, fit] = THUMB_SIZE.exec(size) ?? [];
    const width = Number(w) || null;
    const height = Number(h) || null;
    // The pixel limit is checked against the header before a pixel is decoded: a small file
    // that claims a huge image (a decompression bomb) is refused without the memory it asks.
    const { default: sharp } = await import('sharp');
    const image = sharp({ limitInputPixels: this.#maxPixels, failOn: 'error' })
      .rotate()
      .resize(width, height, { fit: fit === 'f' ? 'inside' : 'cover', position: 'centre' });
    const format = KEPT[type] ?? 'png';
    original.on('error', (error) => image.destroy(error));
    original.pipe(image);
    try {
      return await image.toFormat(format).toBuffer();
    } catch (error) {
      original.destroy();
      const why = (error as Error).message;
      throw new Refusal(
        'image-too-large',
        /pixel limit/i.test(why)
          ? `The image has more pixels than the server opens (${this.#maxPixels}); no thumbnail is made of it.`
          : `The image cannot be read (${why}); no thumbnail is made of it.`,
      );
    }
  }

  async #turn<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#maxAtOnce) {
      if (this.#waiting.length >= MAX_WAITING) {
        throw new Refusal('overloaded', 'Too many thumbnails are being made; try again shortly.', { retryAfter: 1 });
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

/** The type of a thumbnail of an image of `type`. */
export function thumbnailType(type: string): string {
  return KEPT[type] ? type : 'image/png';
}

function invalidThumbnail(detail: string): Refusal {
  return new Refusal('invalid-thumbnail', detail);
}
