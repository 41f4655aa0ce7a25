/**
 * What the OpenAPI document says of an account collection's routes (`x-auth`,
 * src/http/routes/accounts/account-routes.ts): sign in, renew the tokens, sign out; its
 * flows' (who am I, reset, email change) are in ./account-flow-operations.ts. Their bodies are read
 * by the handlers, as the records' are, so these schemas document and never validate.
 */
import type { FastifySchema } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Collection } from '../../core/collection.js';
import type { ProblemKind } from '../problem-types.js';
import { type AccountFlowName, accountFlowDocs, accountProblems } from './account-flow-operations.js';
import { componentNames } from './record-components.js';
import { componentRef, emptyResponse, jsonResponse, requestHeaders } from './responses.js';

/** The bodies every write takes (./operations.ts): JSON, and any `+json` type read as JSON. */
const JSON_BODIES = ['application/json', 'application/*+json'];

export type AccountOperationName = 'signIn' | 'refresh' | 'signOut';

const RefreshTokenBody = Type.Object(
  { refreshToken: Type.String({ description: 'The refresh token the last sign-in or renewal gave.' }) },
  { additionalProperties: true },
);

export type AccountDocs = Record<AccountOperationName | AccountFlowName, FastifySchema>;

/** The documentation of the routes of `collection`, which holds accounts, its flows' included (./account-flow-operations.ts). */
export function accountDocs(collection: Collection): AccountDocs {
  const { plural, singular } = collection;
  const { record } = componentNames(collection);
  const tags = [plural];
  const names = collection.unique.map((field) => field.path.join('.'));
  const problems = (kinds: readonly ProblemKind[]) => accountProblems(['invalid-credentials', ...kinds]);
  // A new object for each use: the document's serializer would share one used twice as a $ref.
  const tokens = () =>
    jsonResponse(
      `A new access token and refresh token, and the ${singular} signed in (never its password). Not to be cached.`,
      tokensSchema(componentRef(record)),
      { 'Cache-Control': Type.String({ description: 'no-store: the tokens are for this client alone.' }) },
    );
  return {
    ...accountFlowDocs(collection, tokens),
    signIn: {
      tags,
      summary: `Sign in to an account of ${plural}`,
      operationId: `signIn${record}`,
      description:
        `Send ${names.length === 1 ? listed(names) : `one of ${listed(names)}`} and the password. ` +
        'The answer is the same 401 whichever was wrong, ' +
        'and failed sign-ins are counted per account and per address: past SIGN_IN_MAX_FAILURES in 15 ' +
        'minutes, 429 with Retry-After. Send the access token as `Authorization: Bearer <token>`; before it ' +
        'expires (expiresIn seconds), renew it at the refresh path.',
      headers: requestHeaders(),
      consumes: JSON_BODIES,
      body: signInBody(names),
      response: { 200: tokens(), ...problems(['too-many-sign-ins', 'overloaded']) },
    },
    refresh: {
      tags,
      summary: 'A new access token, and a new refresh token in place of the one sent',
      operationId: `refresh${record}Token`,
      description:
        'Each refresh token works once: the answer holds the next one. Sending one a second time ' +
        'revokes every token rotated from the same sign-in (401), as a stolen one would be used.',
      headers: requestHeaders(),
      consumes: JSON_BODIES,
      body: RefreshTokenBody,
      response: { 200: tokens(), ...problems([]) },
    },
    signOut: {
      tags,
      summary: 'Sign out: the refresh token, and every one rotated from it, stop working',
      operationId: `signOut${record}`,
      description:
        'Access tokens already given stay valid until they expire. An unknown or expired refresh token ' +
        'signs nothing out and is answered alike.',
      headers: requestHeaders(),
      consumes: JSON_BODIES,
      body: RefreshTokenBody,
      response: { 204: emptyResponse('Signed out.'), ...problems([]) },
    },
  };
}

/** `{ token, refreshToken, expiresIn, record }`: what every sign-in answers (./provider-operations.ts too). */
export function tokensSchema(record: TSchema): TSchema {
  return Type.Object({
    token: Type.String({ description: 'The access token (a JWT), sent as Authorization: Bearer <token>.' }),
    refreshToken: Type.String({ description: 'Renews the access token, once (the refresh path); keep it secret.' }),
    expiresIn: Type.Integer({ minimum: 1, description: 'Seconds until the access token expires.' }),
    record,
  });
}

/** The password and exactly one of the fields an account is found by, each a string. */
function signInBody(names: readonly string[]): TSchema {
  const password = Type.String({ description: "The account's password." });
  const forms = names.map((name) =>
    Type.Object(
      { [name]: Type.String({ description: `The account's ${name}.` }), password },
      { additionalProperties: false },
    ),
  );
  return forms.length === 1 ? (forms[0] as TSchema) : Type.Union(forms);
}

/** `"a"`, `"a" or "b"`. */
function listed(names: readonly string[]): string {
  const quoted = names.map((name) => `"${name}"`);
  return quoted.length < 2 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}
