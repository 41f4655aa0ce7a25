/**
 * What the OpenAPI document says of files: a record's file downloaded (or its thumbnail),
 * src/http/routes/files/, and an account's file token, src/http/routes/accounts/file-token-route.ts.
 * The handlers send bytes and read the query themselves; these schemas document.
 */
import type { FastifySchema } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { withArticle } from '../../core/articles.js';
import type { Collection } from '../../core/collection.js';
import { componentNames } from './record-components.js';
import { emptyResponse, jsonResponse, problemResponses, type ResponseSchema, requestHeaders } from './responses.js';

const Etag = Type.String({ description: "The file's strong entity tag (its SHA-256; a thumbnail has its own)." });

/** What every file response carries beside its bytes. */
const FileHeaders = {
  ETag: Etag,
  'Accept-Ranges': Type.String({ description: 'bytes: a Range of bytes may be asked for.' }),
  'Cache-Control': Type.String({ description: 'private: seen under the record’s rules, kept by no shared cache.' }),
  'Content-Disposition': Type.String({
    description:
      'inline for pictures, sound, video, PDF and plain text; attachment (a download) for every type a browser ' +
      'would run or render as a page (HTML, SVG, XML, scripts). The file name is the stored one.',
  }),
  'Content-Security-Policy': Type.String({
    description: "default-src 'none'; style-src 'unsafe-inline'; sandbox: nothing in a file runs.",
  }),
  'X-Content-Type-Options': Type.String({ description: 'nosniff: the type is the one its content showed at upload.' }),
};

const bytes = (description: string, headers: Record<string, TSchema>): ResponseSchema => ({
  description,
  headers: { ...FileHeaders, ...headers },
  content: { '*/*': { schema: Type.String({ contentMediaType: 'application/octet-stream' }) } },
});

/** The documentation of the download of `collection`'s files (it has file fields). */
export function fileDocs(collection: Collection): FastifySchema {
  const { singular, plural } = collection;
  const fields = collection.files.map((field) => field.name);
  const thumbs = [...new Set(collection.files.flatMap((field) => field.thumbs))];
  const length = Type.Integer({ description: 'The bytes sent: the whole file, or the range.' });
  return {
    tags: [plural],
    summary: `Download a file of ${withArticle(singular)}`,
    operationId: `download${componentNames(collection).record}File`,
    description:
      `The bytes of a file the ${singular} holds in a file field, under the same rules as reading the ${singular}: ` +
      'a record the caller may not see, a field that holds no files and a name it does not hold are all 404. ' +
      'Send If-None-Match for a 304, Range for part of it (206, or 416 past its end). With `thumb`, a thumbnail ' +
      'of a picture, made on first request and kept. A browser that cannot send Authorization passes a file ' +
      'token (from `POST /<accounts>/auth/file-token/`) as `token`.',
    params: Type.Object({
      id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The record id.' }),
      field: Type.String({ enum: fields, description: 'The file field.' }),
      name: Type.String({ description: "The file's name, as the record holds it (its `name`)." }),
    }),
    querystring: Type.Object({
      thumb: Type.Optional(
        Type.String({
          description:
            "A thumbnail size the field lists (x-file's thumbs): WxH crops to fill, Wx0 or 0xH keeps the aspect, " +
            `WxHf fits inside.${thumbs.length > 0 ? ` Listed here: ${thumbs.join(', ')}.` : ''}`,
        }),
      ),
      token: Type.Optional(
        Type.String({
          description:
            "A file token (POST /<accounts>/auth/file-token/): the download is read as its account's. " +
            'An access token is refused here. Never written to the access log.',
        }),
      ),
    }),
    headers: requestHeaders({
      'If-None-Match': Type.Optional(Type.String({ description: 'An ETag the client holds; 304 while it matches.' })),
      Range: Type.Optional(Type.String({ description: 'bytes=START-END (one range; several get the whole file).' })),
      'If-Range': Type.Optional(Type.String({ description: 'The ETag the Range is of; else the whole file is sent.' })),
    }),
    response: {
      200: bytes('The file (or its thumbnail), of its stored type.', { 'Content-Length': length }),
      206: bytes('The range asked for.', {
        'Content-Length': length,
        'Content-Range': Type.String({ description: 'bytes START-END/SIZE.' }),
      }),
      304: emptyResponse('Not modified: the ETag in If-None-Match still matches.', { ETag: Etag }),
      ...problemResponses([
        'invalid-thumbnail',
        'not-found',
        'range-not-satisfiable',
        'image-too-large',
        'method-not-allowed',
        'overloaded',
        'service-unavailable',
      ]),
    },
  };
}

/** The documentation of the file token of `collection` (it holds accounts). */
export function fileTokenDocs(collection: Collection, fileTokenSeconds: number): FastifySchema {
  const { plural } = collection;
  return {
    tags: [plural],
    summary: 'A short-lived token for links to files',
    operationId: `fileToken${componentNames(collection).record}`,
    description:
      `For a signed-in account of ${plural}: a token that stands for it on file downloads only, passed as ` +
      `\`?token=\` where a link cannot carry a header (an image's src). It is good for ${fileTokenSeconds} ` +
      'seconds (FILE_TOKEN_SECONDS), is refused as a Bearer credential, and an access token is refused as ' +
      '`?token=`. 401 without an access token of this collection; 403 with an API key.',
    headers: requestHeaders(),
    response: {
      200: jsonResponse(
        'The file token. Not to be cached.',
        Type.Object({
          token: Type.String({ description: 'The file token (a JWT), for `?token=` on downloads.' }),
          expiresIn: Type.Integer({ minimum: 1, description: 'Seconds until it expires.' }),
        }),
        { 'Cache-Control': Type.String({ description: 'no-store: the token is for this client alone.' }) },
      ),
      ...problemResponses(['unauthorized', 'forbidden', 'method-not-allowed', 'service-unavailable']),
    },
  };
}
