/**
 * What the OpenAPI document says of an account collection's verification routes
 * (`x-auth.verify`, src/http/routes/accounts/verify-routes.ts): confirm an address with the
 * token its mail carried, and send that mail again. Bodies are read by the handlers; these
 * schemas document and never validate.
 */
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import type { Collection } from '../../core/collection.js';
import type { ProblemKind } from '../problem-types.js';
import { componentNames } from './record-components.js';
import { componentRef, emptyResponse, jsonResponse, problemResponses, requestHeaders } from './responses.js';

const JSON_BODIES = ['application/json', 'application/*+json'];

const TokenBody = Type.Object(
  { token: Type.String({ description: 'The token of the link the mail carried (its `token=`).' }) },
  { additionalProperties: true },
);

export function verifyDocs(collection: Collection): Record<'verify' | 'resend', FastifySchema> {
  const { plural, singular } = collection;
  const { record } = componentNames(collection);
  const tags = [plural];
  const problems = (kinds: readonly ProblemKind[]) =>
    problemResponses([
      'malformed-json',
      'payload-too-large',
      'unsupported-media-type',
      ...kinds,
      'method-not-allowed',
      'service-unavailable',
    ]);
  return {
    verify: {
      tags,
      summary: `Confirm the email address of a ${singular} with the token its mail carried`,
      operationId: `verify${record}Email`,
      description:
        'The token works once, for a limited time (VERIFY_TOKEN_HOURS); a newer mail makes the older ' +
        "one's token stop working. An unknown, used, expired or superseded token is one 400 (`invalid-token`). " +
        'Tokens issued before say `verified: false` until they are renewed (the refresh path).',
      headers: requestHeaders(),
      consumes: JSON_BODIES,
      body: TokenBody,
      response: {
        200: jsonResponse(`The ${singular}, its address now verified.`, componentRef(record)),
        ...problems(['invalid-token']),
      },
    },
    resend: {
      tags,
      summary: `Send the verification mail of a ${singular} again`,
      operationId: `resend${record}Verification`,
      description:
        `With the access token of a ${singular}: its mail. Without one, \`{"email"}\`: the mail of the ${singular} ` +
        'with that address, if there is one (the answer is the same 202 either way, after the same work). The mail ' +
        "is queued (its link replaces the earlier one's) and the answer comes at once; nothing is sent for an " +
        'address verified already. Limited per account (or address asked for) and per client address (429 with ' +
        'Retry-After past it); 503 (`mail-unavailable`) where the server cannot send mail.',
      consumes: JSON_BODIES,
      body: Type.Object(
        { email: Type.Optional(Type.String({ description: 'The address, for a caller without a token.' })) },
        { additionalProperties: true },
      ),
      headers: requestHeaders(),
      response: {
        202: emptyResponse('The mail is queued.'),
        ...problems(['unauthorized', 'too-many-requests', 'mail-unavailable']),
      },
    },
  };
}
