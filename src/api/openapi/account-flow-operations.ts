/**
 * What the OpenAPI document says of an account collection's flows
 * (src/http/routes/accounts/: me-route.ts, reset-routes.ts, email-routes.ts): who am I, a
 * password reset and its confirmation, an email change's confirmation. As for sign-in,
 * their bodies are read by the handlers, so these schemas document and never validate.
 */
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import type { Collection } from '../../core/collection.js';
import type { ProblemKind } from '../problem-types.js';
import { componentNames } from './record-components.js';
import {
  componentRef,
  emptyResponse,
  jsonResponse,
  problemResponses,
  ResponseHeaders,
  type ResponseSchema,
  requestHeaders,
} from './responses.js';

const JSON_BODIES = ['application/json', 'application/*+json'];

/** What any account route's body can break beyond being JSON, `kinds`, and the override naming a method the path does not take. */
export function accountProblems(kinds: readonly ProblemKind[]) {
  return problemResponses([
    'malformed-json',
    'invalid-record',
    'payload-too-large',
    'unsupported-media-type',
    ...kinds,
    'method-not-allowed',
    'service-unavailable',
  ]);
}

export type AccountFlowName = 'me' | 'resetRequest' | 'resetConfirm' | 'emailConfirm';

const Token = Type.String({ description: 'The token from the link of the mail (its `token=` parameter).' });

/** The documentation of the flows of `collection`, which holds accounts; `tokens()` makes the sign-in's answer. */
export function accountFlowDocs(
  collection: Collection,
  tokens: () => ResponseSchema,
): Record<AccountFlowName, FastifySchema> {
  const { plural, singular } = collection;
  const { record } = componentNames(collection);
  const tags = [plural];
  const problems = accountProblems;
  const recordAnswer = (description: string) =>
    jsonResponse(description, componentRef(record), { ETag: ResponseHeaders.etag });
  return {
    me: {
      tags,
      summary: `The ${singular} whose access token this is`,
      operationId: `get${record}Me`,
      description:
        `Answers the account the access token names, when it is one of ${plural}: 401 without a token (or ` +
        'with one of another collection, or of an account since deleted); 403 with an API key, which is no account.',
      response: {
        200: recordAnswer(`The ${singular} signed in. Not to be cached.`),
        ...problemResponses(['unauthorized', 'forbidden', 'method-not-allowed', 'service-unavailable']),
      },
    },
    resetRequest: {
      tags,
      summary: `Ask for a password reset of an account of ${plural}`,
      operationId: `requestReset${record}`,
      description:
        'Answers 202 after the same work whatever the address: a mail with a single-use link is sent only ' +
        'when an account has it, and nothing in the answer or its time says whether one does. Only the newest ' +
        'link works, for RESET_TOKEN_MINUTES. Requests are counted per address and per client (429 past ' +
        'SIGN_IN_MAX_FAILURES in 15 minutes); 503 when the server sends no mail.',
      headers: requestHeaders(),
      consumes: JSON_BODIES,
      body: Type.Object(
        { email: Type.String({ minLength: 1, maxLength: 254, description: "The account's email address." }) },
        { additionalProperties: false },
      ),
      response: {
        202: emptyResponse('Asked: a mail goes out if an account has the address.'),
        ...problems(['too-many-requests', 'mail-unavailable']),
      },
    },
    resetConfirm: {
      tags,
      summary: 'Set a new password with the token of a reset mail',
      operationId: `confirmReset${record}`,
      description:
        'Sets the password and signs the account out everywhere (every refresh token stops working; access ' +
        'tokens given before live until they expire, minutes). A used, expired, superseded or unknown token is ' +
        'one 400 (`invalid-token`). With `"signIn": true` the answer is a sign-in\'s, else 204.',
      headers: requestHeaders(),
      consumes: JSON_BODIES,
      body: Type.Object(
        {
          token: Token,
          password: Type.String({ description: "The new password, held to the collection's password schema." }),
          signIn: Type.Optional(Type.Boolean({ description: 'true: answer new tokens, as a sign-in does.' })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: tokens(),
        204: emptyResponse('The password is set; every session is signed out.'),
        ...problems(['invalid-token', 'schema-violation', 'too-many-sign-ins']),
      },
    },
    emailConfirm: {
      tags,
      summary: 'Apply an email change with the token mailed to the new address',
      operationId: `confirmEmail${record}`,
      description:
        'An account that changes its email address keeps the old one until this: the change mails a link to ' +
        'the new address (and tells the old one). A used, expired or unknown token is 400 (`invalid-token`); ' +
        'an address another account took meanwhile is 409.',
      headers: requestHeaders(),
      consumes: JSON_BODIES,
      body: Type.Object({ token: Token }, { additionalProperties: false }),
      response: {
        200: recordAnswer(`The ${singular}, its new address applied and proven.`),
        ...problems(['invalid-token', 'unique-conflict']),
      },
    },
  };
}
