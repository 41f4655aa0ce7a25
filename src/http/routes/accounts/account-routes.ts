/**
 * The routes of each account collection (`x-auth`): sign in, renew the access token with
 * the refresh token, and sign out, at `/<plural>/auth/`. Anyone may call them: they are
 * how a caller gets a credential at all. Its flows are beside: who am I (./me-route.ts),
 * a password reset (./reset-routes.ts), an email change's confirmation (./email-routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { accountDocs } from '../../../api/openapi/account-operations.js';
import { fileTokenDocs } from '../../../api/openapi/file-operations.js';
import type { Catalog } from '../../../core/catalog.js';
import type { Collection } from '../../../core/collection.js';
import type { PasswordHasher, TokenService } from '../../../records/accounts/index.js';
import {
  type FailureCounts,
  invalidCredentials,
  limitFailures,
  memoryFailures,
  redisCounts,
  signIn,
  signInName,
  tokenSubject,
} from '../../../records/accounts/index.js';
import type { MailQueue } from '../../../records/operations/index.js';
import { Refusal } from '../../../records/refusal.js';
import type { Records, Store, StoredRecord } from '../../../store/store.js';
import { registerPaths } from '../../paths.js';
import { clientFields } from '../../plugins/json-body.js';
import { addressKey } from '../../plugins/rate-limit/index.js';
import { connectRedis } from '../../plugins/rate-limit/redis.js';
import { registerSweep } from '../sweep.js';
import { emailPaths } from './email-routes.js';
import { fileTokenOperation } from './file-token-route.js';
import type { FlowDeps } from './flow-deps.js';
import { meOperation } from './me-route.js';
import { resetPaths } from './reset-routes.js';
import { sendTokens } from './send-tokens.js';

export interface AccountRoutesOptions {
  store: Store;
  catalog: Catalog;
  tokens: TokenService;
  hasher: PasswordHasher;
  /** Failed sign-ins allowed per account name and per address in a window (SIGN_IN_MAX_FAILURES). */
  maxFailures: number;
  /** A Redis every instance counts failures in, or '' to count in this process. */
  redisUrl: string;
  /** Where account mail goes (a password reset's): whether it can, and how its sender is woken. */
  mail?: MailQueue;
  /** A file token's life in seconds (FILE_TOKEN_SECONDS), as the document states it. */
  fileTokenSeconds: number;
}

/** How often expired refresh tokens are forgotten. */
const REFRESH_SWEEP_MS = 60 * 60 * 1000;

export const accountRoutes = fp(serveAccounts, {
  name: 'restock-account-routes',
  fastify: '5.x',
  dependencies: ['restock-problems', 'restock-openapi', 'restock-json-body', 'restock-access-control'],
});

async function serveAccounts(app: FastifyInstance, options: AccountRoutesOptions): Promise<void> {
  const failures = options.redisUrl === '' ? memoryFailures() : redisCounts(await connectRedis(app, options.redisUrl));
  const flows: FlowDeps = {
    ...options,
    resetRequests: failures,
    maxResetRequests: options.maxFailures,
    mail: options.mail ?? { available: false, queued: () => {} },
  };
  for (const collection of options.catalog.collections) {
    if (collection.account) registerAccountRoutes(app, collection, options, failures, flows);
  }
  registerSweep(app, 'refresh tokens', REFRESH_SWEEP_MS, () => options.tokens.sweep());
}

function registerAccountRoutes(
  app: FastifyInstance,
  collection: Collection,
  options: AccountRoutesOptions,
  failures: FailureCounts,
  flows: FlowDeps,
) {
  const records: Records = options.store.collection(collection);
  const { tokens, hasher } = options;
  const account = (record: StoredRecord) => tokenSubject(options.store.accounts, collection, record);
  const refreshTokenOf = (body: unknown) => {
    const { refreshToken } = clientFields(body);
    if (typeof refreshToken !== 'string') throw invalidCredentials();
    return refreshToken;
  };
  const docs = accountDocs(collection);
  const own = { catalog: options.catalog, collection, records };
  registerPaths(app, [
    {
      url: `/${collection.plural}/auth/`,
      policy: { public: true },
      operations: {
        GET: meOperation(own, docs.me),
        POST: {
          docs: docs.signIn,
          async handler(request, reply) {
            const fields = clientFields(request.body);
            const { value } = signInName(collection, fields);
            const name = `account:${collection.plural}:${value.toLowerCase()}`;
            const address = addressKey(request);
            // The hash is the named account's and the address's: a sign-in is anonymous.
            const holder = { client: `sign-in:${collection.plural}:${value.toLowerCase()}`, address };
            const record = await limitFailures(
              failures,
              options.maxFailures,
              [name, address],
              () => signIn(collection, records, hasher, fields, holder),
              (error) => error instanceof Refusal && error.kind === 'invalid-credentials',
            );
            return sendTokens(reply, await tokens.issue(await account(record)), record);
          },
        },
        DELETE: {
          docs: docs.signOut,
          async handler(request, reply) {
            await tokens.signOut(collection.plural, refreshTokenOf(request.body));
            return reply.code(204).send();
          },
        },
      },
    },
    {
      url: `/${collection.plural}/auth/refresh/`,
      policy: { public: true },
      operations: {
        POST: {
          docs: docs.refresh,
          async handler(request, reply) {
            const rotated = await tokens.refresh(collection.plural, refreshTokenOf(request.body));
            const record = rotated && (await records.get(rotated.id));
            if (!rotated || !record) throw invalidCredentials();
            const access = await tokens.accessToken(await account(record));
            return sendTokens(reply, { ...access, refreshToken: rotated.refreshToken }, record);
          },
        },
      },
    },
    {
      url: `/${collection.plural}/auth/file-token/`,
      policy: { public: true },
      operations: {
        POST: fileTokenOperation(options, own, fileTokenDocs(collection, options.fileTokenSeconds)),
      },
    },
    ...(collection.account?.email === undefined ? [] : resetPaths(collection, flows, docs)),
    ...(collection.account?.verify === 'email' ? emailPaths(collection, flows, docs) : []),
  ]);
}
