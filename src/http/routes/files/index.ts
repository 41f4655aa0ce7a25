/**
 * The file routes of a collection with file fields: `GET` (and HEAD) of
 * `/<singular>/{id}/files/<field>/<name>` (and its plural alias, as for the record's own path),
 * the bytes of a file a record holds, or with
 * `?thumb=WxH` its thumbnail. The record is read as its GET would read it, for the same
 * caller (src/records/files/find-file.ts); a signed-in browser that cannot send a header
 * comes with a file token as `?token=` (the access control reads it, src/http/route-policy.ts).
 */
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { fileDocs } from '../../../api/openapi/file-operations.js';
import { recordIdOf } from '../../../core/record-id.js';
import { findFile } from '../../../records/files/find-file.js';
import type { Thumbnails } from '../../../records/files/thumbnails.js';
import type { RecordKit } from '../../../records/operations/index.js';
import { type Operation, registerPaths } from '../../paths.js';
import { callerOf } from '../../plugins/access-control/access-control.js';
import { sendStored } from './send-stored.js';

const FileParamsShape = Type.Object({
  id: Type.String(),
  field: Type.String(),
  name: Type.String(),
});

const FileQueryShape = Type.Object({
  thumb: Type.Optional(Type.String()),
  token: Type.Optional(Type.String()),
});

/** Registers the file routes of `kit`'s collection; it has file fields and the kit a file storage. */
export function registerFileRoutes(app: FastifyInstance, kit: RecordKit, thumbnails: Thumbnails): void {
  const { collection } = kit;
  const policy = kit.access.policy('view');
  const download: Operation = {
    schema: { params: FileParamsShape, querystring: FileQueryShape },
    docs: fileDocs(collection),
    async handler(request, reply) {
      const params = request.params as Static<typeof FileParamsShape>;
      const { thumb } = request.query as Static<typeof FileQueryShape>;
      const id = recordIdOf(params.id);
      if (id === undefined) throw kit.notFound(params.id);
      const found = await findFile(kit, callerOf(request), id, params.field, params.name);
      const { file, storage } = found;
      if (thumb === undefined) {
        return sendStored(request, reply, { storage, key: found.key, ...file, etag: `"${file.sha256}"` });
      }
      const made = await thumbnails.of(found, collection.plural, thumb);
      // Its own tag: the file's digest, the size, and when this thumbnail was stored (a remade one differs).
      const etag = `"${file.sha256}-${thumb}-${made.stored.modified.getTime().toString(36)}"`;
      const name = file.name.replace(/(\.[^.]*)?$/, `_${thumb}${extensionOf(made.type)}`);
      return sendStored(request, reply, {
        storage,
        key: made.key,
        name,
        type: made.type,
        size: made.stored.size,
        etag,
      });
    },
  };
  const path = {
    // The view rule's policy on the whole path: a method it does not take, tunnelled or not, is its 405.
    policy: { fileToken: true, ...(policy.rules !== undefined && policy) },
    compress: false as const,
    operations: { GET: download },
  };
  registerPaths(app, [
    { url: `/${collection.singular}/:id/files/:field/:name`, ...path },
    // The plural form, as a record's own path answers it (/products/7/): restock-client's fileUrl builds it.
    { url: `/${collection.plural}/:id/files/:field/:name`, alias: true, ...path },
  ]);
}

function extensionOf(type: string): string {
  return type === 'image/jpeg' ? '.jpg' : type === 'image/webp' ? '.webp' : '.png';
}
