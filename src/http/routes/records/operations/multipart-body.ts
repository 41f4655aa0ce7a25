/**
 * A create's or change's `multipart/form-data` body: the record's fields as JSON in a part
 * named `record` (or as form fields, each read by its schema type), and each file in a part
 * named after its file field, staged as it streams (src/records/files/staging.ts). The parts
 * are held to the collection's own bounds: no more files than its fields hold, none larger
 * than its largest `maxBytes`, no field longer than a record. Anything refused or broken
 * removes every file staged so far.
 */
import type { FastifyRequest } from 'fastify';
import { isObject } from '../../../../core/is-object.js';
import type { RecordLimits as BodyLimits } from '../../../../core/record-limits.js';
import { discardStaged, FileRefusal, type StagedFile, stageFile } from '../../../../records/files/index.js';
import type { RecordKit } from '../../../../records/operations/index.js';
import { Refusal } from '../../../../records/refusal.js';
import { jsonValue, objectBody } from '../../../plugins/json-body.js';
import { HttpProblem } from '../../../problem.js';

export interface MultipartWrite {
  readonly body: Record<string, unknown>;
  readonly uploads: StagedFile[];
}

/** The record part's name. */
const RECORD_PART = 'record';

/**
 * Whether `request` came as `multipart/form-data`. Only an app with file fields takes such a
 * body (../../../plugins/multipart-body.ts); any other answers it `415` before a route runs.
 */
export function isMultipart(request: FastifyRequest): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(request.headers['content-type'] ?? '');
}

/** Reads `request`'s parts for `kit`'s collection; the caller discards the uploads once the write is done. */
export async function readMultipart(
  request: FastifyRequest,
  kit: RecordKit,
  limits: BodyLimits,
): Promise<MultipartWrite> {
  const { files } = kit;
  const fields = kit.collection.files;
  if (!files) {
    throw new HttpProblem(
      'unsupported-media-type',
      `${kit.collection.plural} has no file fields: send the record as JSON.`,
    );
  }
  const uploads: StagedFile[] = [];
  let record: unknown;
  const form: Record<string, unknown> = {};
  try {
    const parts = request.parts({
      limits: {
        fileSize: Math.max(...fields.map((field) => field.maxBytes)) + 1,
        files: fields.reduce((sum, field) => sum + field.maxFiles, 0),
        fieldSize: kit.limits.maxRecordBytes,
        fields: (limits.maxRecordFields ?? 1000) + 1,
        fieldNameSize: limits.maxFieldNameLength,
      },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        const field = fields.find((one) => one.name === part.fieldname);
        if (!field) throw FileRefusal.noFileField(part.fieldname);
        if (uploads.filter((upload) => upload.field === field).length >= field.maxFiles)
          throw FileRefusal.tooMany(field);
        const sent = { filename: part.filename, declaredType: part.mimetype };
        uploads.push(await stageFile(files.storage, field, part.file, sent, files.maxPixels));
      } else if (part.valueTruncated) {
        throw new Refusal('record-too-large', `The field ${part.fieldname} is longer than a record may be.`);
      } else if (part.fieldname === RECORD_PART) {
        record = jsonValue(Buffer.from(String(part.value)), limits);
      } else {
        form[part.fieldname] = formValue(kit, part.fieldname, String(part.value));
      }
    }
    return { body: { ...objectBody(record ?? {}), ...form }, uploads };
  } catch (error) {
    await discardStaged(uploads);
    throw refusalOf(error);
  }
}

/** A form field's text as its schema types it: a number, a boolean, or JSON for an object or array. */
function formValue(kit: RecordKit, name: string, text: string): unknown {
  const properties = kit.collection.schema?.document.properties;
  const schema = isObject(properties) && isObject(properties[name]) ? properties[name] : {};
  const types = [schema.type].flat().filter((type) => typeof type === 'string');
  if (types.length === 0 || types.includes('string')) return text;
  if ((types.includes('number') || types.includes('integer')) && text.trim() !== '' && Number.isFinite(Number(text))) {
    return Number(text);
  }
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What busboy's and @fastify/multipart's errors mean to the client; anything else passes as it is. */
function refusalOf(error: unknown): unknown {
  if (error instanceof Refusal || error instanceof HttpProblem) return error;
  const { code, message } = error as { code?: string; message?: string };
  switch (code) {
    case 'FST_FILES_LIMIT':
      return new Refusal('too-many-files', 'The body has more files than the collection’s file fields hold.');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new HttpProblem('invalid-record', 'The body has more fields than a record may have.');
    case 'FST_REQ_FILE_TOO_LARGE':
      return new Refusal('file-too-large', 'A file is larger than any file field takes.');
    default:
      if (!/end of form|malformed|boundary|aborted|premature close|FST_/i.test(`${code} ${message}`)) return error;
      return FileRefusal.incomplete(`The multipart body cannot be read: ${message ?? 'it ended early'}.`);
  }
}
