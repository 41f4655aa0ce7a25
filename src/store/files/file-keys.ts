/**
 * The keys files are stored under, and the names restock makes for them. A name is the
 * client's base name made safe, a random part, and the extension of the type its content
 * shows (`photo_k3x9q2m7vb.png`), so it never repeats and never carries a path.
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The key of file `name` of `collection`. */
export function fileKey(collection: string, name: string): string {
  return `${collection}/${name}`;
}

/** The key of `name`'s thumbnail of `size` (`200x200`); every thumbnail sits under its file's `thumbs/<name>/`. */
export function thumbKey(collection: string, name: string, size: string): string {
  return `${thumbsOf(collection, name)}/${size}`;
}

/** The prefix (without its final `/`) of every thumbnail of `name`. */
export function thumbsOf(collection: string, name: string): string {
  return `${collection}/thumbs/${name}`;
}

/** A new stored name for a file the client called `original`, whose content is of extension `extension`. */
export function newFileName(original: string, extension: string | undefined): string {
  const base = (original.split(/[\\/]/).pop() ?? '')
    .replace(/\.[^.]*$/, '')
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^[_-]+|_+$/g, '')
    .slice(0, 60)
    .toLowerCase();
  const bytes = randomBytes(10);
  let random = '';
  for (const byte of bytes) random += ALPHABET[byte % ALPHABET.length];
  const ext = extension && /^[a-z0-9]{1,10}$/.test(extension) ? `.${extension}` : '';
  return `${base === '' ? 'file' : base}_${random}${ext}`;
}
