/** What an upload or a file field's value is refused for, as ../refusal.ts's typed errors, each pointing at its field. */
import type { FileField } from '../../core/file-fields.js';
import { escapePointer } from '../../core/json-pointer.js';
import { Refusal, type RefusalKind } from '../refusal.js';

function refusal(kind: RefusalKind, field: string, message: string): Refusal {
  return new Refusal(kind, `${field}: ${message}`, { errors: [{ pointer: `/${escapePointer(field)}`, message }] });
}

export const FileRefusal = {
  tooLarge: (field: FileField) =>
    refusal('file-too-large', field.name, `a file may have at most ${field.maxBytes} bytes`),
  typeRefused: (field: FileField, why: string) => refusal('file-type-refused', field.name, why),
  tooMany: (field: FileField) =>
    refusal('too-many-files', field.name, `holds at most ${field.maxFiles} file${field.maxFiles === 1 ? '' : 's'}`),
  noFileField: (name: string) => refusal('too-many-files', name, 'is not a file field of this collection'),
  imageTooLarge: (field: FileField, why: string) => refusal('image-too-large', field.name, why),
  notUploaded: (field: FileField) =>
    refusal(
      'file-not-uploaded',
      field.name,
      'names a file the record does not hold: send files as multipart/form-data parts; JSON may keep or remove (null) files',
    ),
  incomplete: (why: string) => new Refusal('incomplete-upload', why),
};
