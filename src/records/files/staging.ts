/**
 * An uploaded file staged while it streams in: written to the storage's staging folder,
 * counted against its field's `maxBytes` as it arrives (the stream is cut at the first
 * byte over), hashed, and its type read from its first bytes (file-type), never from the
 * client's word. Nothing is held whole in memory. A refusal removes the staged file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileField, FileMeta } from '../../core/file-fields.js';
import { newFileName } from '../../store/files/file-keys.js';
import type { FileStorage } from '../../store/files/file-storage.js';
import { FileRefusal } from './file-refusal.js';
import { checkImage, type SentFile, typeOfContent } from './file-types.js';

/** A file staged for `field`: its metadata as the record will hold it, and where its bytes wait. */
export interface StagedFile {
  readonly field: FileField;
  readonly meta: FileMeta;
  readonly path: string;
}

/** How many leading bytes the type is read from (what file-type reads at most). */
const HEAD_BYTES = 4100;

/**
 * Stages `source` (one file part) for `field`; throws a {@link FileRefusal} when it is over
 * `maxBytes`, of a type the field refuses or its name and declared type contradict, or an
 * image of more than `maxPixels` pixels.
 */
export async function stageFile(
  storage: FileStorage,
  field: FileField,
  source: Readable,
  sent: SentFile,
  maxPixels: number,
): Promise<StagedFile> {
  await mkdir(storage.stagingDir, { recursive: true });
  const path = join(storage.stagingDir, `${randomBytes(12).toString('hex')}.part`);
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let size = 0;
  let headSize = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > field.maxBytes) {
        return done(FileRefusal.tooLarge(field));
      }
      hash.update(chunk);
      if (headSize < HEAD_BYTES) {
        head.push(chunk.subarray(0, HEAD_BYTES - headSize));
        headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, meter, createWriteStream(path, { flags: 'wx' }));
    // busboy ends a file cut at its limit without an error; only the flag tells.
    if ((source as { truncated?: boolean }).truncated) throw FileRefusal.tooLarge(field);
    const type = await typeOfContent(field, Buffer.concat(head), sent);
    await checkImage(path, type, maxPixels, field);
    const meta = {
      name: newFileName(sent.filename, type.extension),
      type: type.mime,
      size,
      sha256: hash.digest('hex'),
    };
    return { field, meta, path };
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
}

/** Removes staged files that will not be put (a refused or failed request). */
export async function discardStaged(staged: readonly StagedFile[]): Promise<void> {
  await Promise.all(staged.map((file) => rm(file.path, { force: true })));
}
