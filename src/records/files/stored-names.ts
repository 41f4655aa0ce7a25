/**
 * What the reaper and the sweep remove for a file name: the file and its thumbnails. A name
 * comes from a record (the schema holds names to a safe pattern, but a record may come from
 * elsewhere: an import, a hand edit), so one that could reach outside its collection's
 * folder is never turned into a key.
 */
import { filesIn, isFileName } from '../../core/file-fields.js';
import { fileKey, thumbsOf } from '../../store/files/file-keys.js';

/** The keys that removing `names` of `collection` removes: each file and its thumbnails' folder. */
export function storedKeysOf(collection: string, names: readonly string[]): string[] {
  return names.filter(isFileName).flatMap((name) => [fileKey(collection, name), thumbsOf(collection, name)]);
}

/** The names a file field's value, as JSON text ('' for none), holds. */
export function namesInText(text: string): string[] {
  if (text === '') return [];
  return filesIn(JSON.parse(text)).map((file) => file.name);
}
