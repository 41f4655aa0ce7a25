/**
 * Sign-in with an outside provider (AUTH_PROVIDERS), at `/<plural>/auth/providers/`: the
 * list, the redirect to a provider, its callback, and the exchange of the one-time code
 * for the tokens a password sign-in gives. Glue over src/records/accounts/ (ProviderSignIn),
 * which does the protocol, keeps the flows and finds, links or creates the account.
 *
 * The callback URL the provider must know is PUBLIC_URL's when set, else the origin the
 * request came to: without PUBLIC_URL, a browser that began the flow through another
 * name of the server comes back there, and the provider must list each such URL (set
 * PUBLIC_URL behind a proxy). The browser only ever carries `state` and codes; tokens go
 * to the app in the answer of the exchange, never in a URL it could log.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { providerDocs } from '../../../api/openapi/provider-operations.js';
import { requestOrigin } from '../../../api/openapi/servers.js';
import type { Config, ProviderSetting } from '../../../config/index.js';
import type { Catalog } from '../../../core/catalog.js';
import type { Collection } from '../../../core/collection.js';
import { appRedirect, ProviderSignIn, type TokenService, tokenSubject } from '../../../records/accounts/index.js';
import { InFlightGate } from '../../../records/in-flight-gate.js';
import { type RecordLimits, readyCreate, recordKits, recordLimitsOf } from '../../../records/operations/index.js';
import { JSON_TYPE } from '../../../records/render.js';
import type { Store } from '../../../store/store.js';
import { registerPaths } from '../../paths.js';
import { clientFields } from '../../plugins/json-body.js';
import { sendTokens } from './send-tokens.js';

export interface ProviderRoutesOptions {
  store: Store;
  catalog: Catalog;
  tokens: TokenService;
  /** Each account collection's providers (AUTH_PROVIDERS, checked against the catalog). */
  providers: ReadonlyMap<Collection, readonly ProviderSetting[]>;
  /** The limits of records: an account made on a first sign-in is created as any record is. */
  config: Pick<Config, keyof RecordLimits>;
  /** PUBLIC_URL, or '' to take each request's origin. */
  publicUrl: string;
  /** Origins besides this server's that a sign-in may send the browser back to (APP_URL's). */
  appOrigins: readonly string[];
  /** The flows' clock (tests move it). */
  now?: () => number;
}

/**
 * Who creates the account of a first sign-in: the person the provider vouched for, signing
 * themselves up, so no one in particular (`auth` null), as a sign-up without a token is.
 * The collection's `create` rule and schema apply as they do to that sign-up: a collection
 * that lets no anonymous caller create accounts lets no provider sign-in create one either.
 */
const SIGNING_UP = { auth: null } as const;

const NO_LISTS = { kind: 'too-many-costly-queries', noun: 'costly queries running', retry: 'never' } as const;

export const providerRoutes = fp(serveProviders, {
  name: 'restock-provider-routes',
  fastify: '5.x',
  dependencies: ['restock-problems', 'restock-openapi', 'restock-json-body', 'restock-access-control'],
});

async function serveProviders(app: FastifyInstance, options: ProviderRoutesOptions): Promise<void> {
  // Kits of their own, for creates alone: no list runs through them, so their gate has no cap.
  const kitOf = recordKits(options.catalog, {
    store: options.store,
    limits: recordLimitsOf(options.config),
    costlyQueries: new InFlightGate({ total: 0, perClient: 0 }, NO_LISTS),
  });
  for (const [collection, providers] of options.providers) {
    const kit = kitOf(collection);
    const flows = new ProviderSignIn({
      collection,
      records: kit.records,
      accounts: options.store.accounts,
      providers,
      createAccount: (fields, verified) =>
        kit.records.create(readyCreate(kit, SIGNING_UP, fields), undefined, { verified }),
      ...(options.now && { now: options.now }),
    });
    registerProviderRoutes(app, collection, flows, options);
  }
}

function registerProviderRoutes(
  app: FastifyInstance,
  collection: Collection,
  flows: ProviderSignIn,
  options: ProviderRoutesOptions,
) {
  const base = `/${collection.plural}/auth/providers`;
  const origin = (request: FastifyRequest) => options.publicUrl || requestOrigin(request) || '';
  const docs = providerDocs(collection, flows.names);
  const nameOf = (request: FastifyRequest) => (request.params as { name: string }).name;
  registerPaths(app, [
    {
      url: `${base}/`,
      policy: { public: true },
      operations: {
        GET: {
          docs: docs.list,
          handler: (_request, reply) =>
            reply.type(JSON_TYPE).send(JSON.stringify(flows.names.map((name) => ({ name })))),
        },
      },
    },
    {
      url: `${base}/:name/`,
      policy: { public: true },
      operations: {
        GET: {
          docs: docs.begin,
          async handler(request, reply) {
            const name = nameOf(request);
            const own = origin(request);
            const redirect = appRedirect((request.query as { redirect?: unknown }).redirect, [
              ...(own === '' ? [] : [new URL(own).origin]),
              ...options.appOrigins,
            ]);
            const callbackUrl = `${own}${base}/${encodeURIComponent(name)}/callback/`;
            const url = await flows.begin(name, { redirect, callbackUrl });
            return reply.header('cache-control', 'no-store').redirect(url.href, 302);
          },
        },
      },
    },
    {
      url: `${base}/:name/callback/`,
      policy: { public: true },
      operations: {
        GET: {
          docs: docs.callback,
          async handler(request, reply) {
            const at = request.url.indexOf('?');
            const query = new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1));
            const back = await flows.complete(nameOf(request), query);
            return reply.header('cache-control', 'no-store').redirect(back.href, 302);
          },
        },
      },
    },
    {
      url: `${base}/exchange/`,
      policy: { public: true },
      operations: {
        POST: {
          docs: docs.exchange,
          async handler(request, reply) {
            const record = await flows.exchange(clientFields(request.body).code);
            const subject = await tokenSubject(options.store.accounts, collection, record);
            return sendTokens(reply, await options.tokens.issue(subject), record);
          },
        },
      },
    },
  ]);
}
