/**
 * What the OpenAPI document says of sign-in with an outside provider
 * (src/http/routes/accounts/provider-routes.ts): the list, the redirect to a provider, its
 * callback, and the exchange of the one-time code for tokens.
 */
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import type { Collection } from '../../core/collection.js';
import { tokensSchema } from './account-operations.js';
import { componentNames } from './record-components.js';
import { componentRef, jsonResponse, problemResponses, requestHeaders } from './responses.js';

export type ProviderOperationName = 'list' | 'begin' | 'callback' | 'exchange';

const redirectResponse = (description: string) => ({
  description,
  type: 'null' as const,
  headers: { Location: Type.String({ description: 'Where the browser goes next.' }) },
});

/** The documentation of the provider routes of `collection`, whose providers are `names`. */
export function providerDocs(
  collection: Collection,
  names: readonly string[],
): Record<ProviderOperationName, FastifySchema> {
  const { plural, singular } = collection;
  const { record } = componentNames(collection);
  const tags = [plural];
  const name = Type.Object({
    name: Type.Union(
      names.map((each) => Type.Literal(each)),
      { description: 'The provider.' },
    ),
  });
  return {
    list: {
      tags,
      summary: `The outside providers an account of ${plural} can sign in with`,
      operationId: `list${record}Providers`,
      description: 'An app shows a button for each; the next path begins a sign-in with one.',
      response: {
        200: jsonResponse(
          'Each provider by its name.',
          Type.Array(Type.Object({ name: Type.String({ description: 'Its name in the paths below.' }) })),
        ),
        ...problemResponses(['method-not-allowed', 'service-unavailable']),
      },
    },
    begin: {
      tags,
      summary: 'Begin a sign-in with a provider: a redirect to its sign-in page',
      operationId: `begin${record}ProviderSignIn`,
      description:
        'Open this in the browser. It goes to the provider (OpenID Connect: authorization code with PKCE, ' +
        '`state` and `nonce`), then to the callback, then to `redirect` with `?code=<one-time code>` (exchange ' +
        'it within 60 seconds) or `?error=` (`denied`, `provider-error`, `account-exists`: an account has that ' +
        'email and one side has not verified it, `account-refused`: the claims make no valid ' +
        `${singular}). \`redirect\` must be on this server's origin or the app's (APP_URL).`,
      params: name,
      querystring: Type.Object({
        redirect: Type.String({ description: 'Where the app wants the browser back, with the code.' }),
      }),
      response: {
        302: redirectResponse("To the provider's authorization endpoint."),
        ...problemResponses(['invalid-query', 'not-found', 'method-not-allowed', 'service-unavailable']),
      },
    },
    callback: {
      tags,
      summary: 'Where the provider sends the browser back (not for apps to call)',
      operationId: `complete${record}ProviderSignIn`,
      description:
        'The provider calls it with `code` and `state`. Answers with a redirect to the app (with `code` or ' +
        '`error`); a `state` that names no sign-in begun here, or one finished already, is a 400.',
      params: name,
      querystring: Type.Object({
        state: Type.Optional(Type.String()),
        code: Type.Optional(Type.String()),
        iss: Type.Optional(Type.String()),
        error: Type.Optional(Type.String()),
      }),
      response: {
        302: redirectResponse("To the app's redirect, with `code` or `error`."),
        ...problemResponses(['invalid-provider-flow', 'not-found', 'method-not-allowed', 'service-unavailable']),
      },
    },
    exchange: {
      tags,
      summary: 'Exchange the one-time code of a provider sign-in for tokens',
      operationId: `exchange${record}ProviderCode`,
      description:
        'The answer of a password sign-in. A code works once, within 60 seconds; a second use, an unknown or ' +
        'an expired one is one 400.',
      headers: requestHeaders(),
      consumes: ['application/json', 'application/*+json'],
      body: Type.Object(
        { code: Type.String({ description: 'The code the redirect to the app carried.' }) },
        { additionalProperties: true },
      ),
      response: {
        200: jsonResponse(
          `A new access token and refresh token, and the ${singular} signed in. Not to be cached.`,
          tokensSchema(componentRef(record)),
          { 'Cache-Control': Type.String({ description: 'no-store: the tokens are for this client alone.' }) },
        ),
        ...problemResponses([
          'malformed-json',
          'invalid-record',
          'payload-too-large',
          'unsupported-media-type',
          'invalid-provider-flow',
          'method-not-allowed',
          'service-unavailable',
        ]),
      },
    },
  };
}
