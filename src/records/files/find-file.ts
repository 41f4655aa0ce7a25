/**
 * A file of a record, found as a read of the record finds the record: the same `view` rule
 * for the same caller. A record the caller may not see, one that is not there, a field that
 * holds no files and a name the record does not hold are one answer, the record's 404: a
 * download says no more of a hidden record than its read would.
 */
import type { FileField, FileMeta } from '../../core/file-fields.js';
import { filesIn } from '../../core/file-fields.js';
import { fileKey } from '../../store/files/file-keys.js';
import type { FileStorage } from '../../store/files/file-storage.js';
import type { StoredRecord } from '../../store/store.js';
import type { RecordKit } from '../operations/record-kit.js';
import type { Caller } from '../rules/record-access.js';

/** A file a caller may download: its record, its field, its metadata, and where its bytes are. */
export interface FoundFile {
  readonly record: StoredRecord;
  readonly field: FileField;
  readonly file: FileMeta;
  /** Its key in the file storage. */
  readonly key: string;
  readonly storage: FileStorage;
}

/** File `name` of field `fieldName` of record `id`, if `caller` may view the record; else the record's 404. */
export async function findFile(
  kit: RecordKit,
  caller: Caller,
  id: number,
  fieldName: string,
  name: string,
): Promise<FoundFile> {
  const field = kit.collection.files.find((candidate) => candidate.name === fieldName);
  const storage = kit.files?.storage;
  if (!field || !storage) throw kit.notFound(id);
  const record = await kit.records.get(id);
  if (!record) throw kit.notFound(id);
  const fields = JSON.parse(record.data) as Record<string, unknown>;
  if (!kit.access.canView(caller, record, fields)) throw kit.notFound(id);
  const file = filesIn(fields[field.name]).find((held) => held.name === name);
  if (!file) throw kit.notFound(id);
  return { record, field, file, key: fileKey(kit.collection.plural, file.name), storage };
}
