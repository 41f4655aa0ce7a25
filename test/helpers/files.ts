/**
 * Files for the download suites: bytes put in a file storage as an upload puts them (staged,
 * then moved under their key), pictures made with sharp, and a decompression bomb: a PNG of
 * a few hundred bytes whose header claims more pixels than any server should open.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import type { FileMeta } from '../../src/core/file-fields.js';
import { fileKey, newFileName } from '../../src/store/files/file-keys.js';
import type { FileStorage } from '../../src/store/files/file-storage.js';

/** Puts `bytes` under a new name of `collection`, as an upload would, and answers the metadata a record holds. */
export async function storeFile(
  storage: FileStorage,
  collection: string,
  { bytes, type, original }: { bytes: Buffer; type: string; original: string },
): Promise<FileMeta> {
  const name = newFileName(original, original.split('.').pop());
  mkdirSync(storage.stagingDir, { recursive: true });
  const staged = join(storage.stagingDir, randomBytes(8).toString('hex'));
  writeFileSync(staged, bytes);
  await storage.put(fileKey(collection, name), staged, type);
  return { name, type, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** A `width`×`height` picture of two halves (so that a crop shows), as `format`. */
export function picture(width: number, height: number, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const half = Buffer.alloc(Math.ceil(width / 2) * height * 3, 0x20);
  return sharp({ create: { width, height, channels: 3, background: '#c04020' } })
    .composite([{ input: half, raw: { width: Math.ceil(width / 2), height, channels: 3 }, left: 0, top: 0 }])
    .toFormat(format)
    .toBuffer();
}

/** A PNG whose header says `width`×`height` and whose data is one row: no decoder should be asked to open it. */
export function pngBomb(width = 30_000, height = 30_000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
