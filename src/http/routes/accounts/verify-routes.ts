/**
 * The verification routes of each account collection that asks for it (`"x-auth":
 * {"verify": "email"}`), under `/<plural>/auth/verify/`: confirm an address with the token
 * its mail carried, and have that mail sent again (to the signed-in account, or by address).
 * The mail itself goes through the outbox (src/records/mail/); its token is made when it is
 * sent, and only its hash is kept.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { verifyDocs } from '../../../api/openapi/verify-operations.js';
import type { Catalog } from '../../../core/catalog.js';
import type { Collection } from '../../../core/collection.js';
import {
  addressMailDue,
  FAILURE_WINDOW_MS,
  invalidToken,
  memoryCounts,
  redisCounts,
  sentTokenHash,
  type WindowCounts,
} from '../../../records/accounts/index.js';
import { type MailQueue, mailUnavailable } from '../../../records/operations/index.js';
import { Refusal } from '../../../records/refusal.js';
import { JSON_TYPE, renderRecord } from '../../../records/render.js';
import { InvalidFlowTokenError, type Store } from '../../../store/store.js';
import { registerPaths } from '../../paths.js';
import { accountOf } from '../../plugins/access-control/identity.js';
import { clientFields } from '../../plugins/json-body.js';
import { addressKey } from '../../plugins/rate-limit/index.js';
import { connectRedis } from '../../plugins/rate-limit/redis.js';
import { HttpProblem } from '../../problem.js';

export interface VerifyRoutesOptions {
  store: Store;
  catalog: Catalog;
  mail: MailQueue;
  /** A Redis every instance counts resends in, as failed sign-ins are, or '' to count in this process. */
  redisUrl: string;
  /** Where resends are counted, in place of what `redisUrl` says. */
  resends?: WindowCounts;
}

/** Resends allowed per account, and per client address, in {@link RESEND_WINDOW_MS}. */
export const RESENDS_PER_ACCOUNT = 3;
export const RESENDS_PER_ADDRESS = 10;
/** The window of failed sign-ins, so that resends in Redis expire as those do. */
export const RESEND_WINDOW_MS = FAILURE_WINDOW_MS;

export const verifyRoutes = fp(serveVerification, {
  name: 'restock-verify-routes',
  fastify: '5.x',
  dependencies: ['restock-problems', 'restock-openapi', 'restock-json-body', 'restock-access-control'],
});

async function serveVerification(app: FastifyInstance, options: VerifyRoutesOptions): Promise<void> {
  const resends =
    options.resends ??
    (options.redisUrl === '' ? memoryCounts(RESEND_WINDOW_MS) : redisCounts(await connectRedis(app, options.redisUrl)));
  for (const collection of options.catalog.collections) {
    if (collection.account?.verify === 'email') registerVerifyRoutes(app, collection, options, resends);
  }
}

function registerVerifyRoutes(
  app: FastifyInstance,
  collection: Collection,
  { store, mail }: VerifyRoutesOptions,
  resends: WindowCounts,
) {
  const { plural } = collection;
  const records = store.collection(collection);
  const docs = verifyDocs(collection);
  registerPaths(app, [
    {
      url: `/${plural}/auth/verify/`,
      policy: { public: true },
      operations: {
        POST: {
          docs: docs.verify,
          async handler(request, reply) {
            const hash = sentTokenHash(clientFields(request.body).token);
            const now = Date.now();
            const found = await store.accounts.findFlowToken('verify', plural, hash, now);
            if (!found?.accountId) throw invalidToken();
            // One write spends the token and marks the account verified: both, or neither.
            const spend = { purpose: 'verify' as const, hash, now };
            const record = await records.merge(found.accountId, {}, { spend, verified: true }).catch((error) => {
              throw error instanceof InvalidFlowTokenError ? invalidToken() : error;
            });
            if (!record) throw invalidToken();
            return reply.code(200).header('cache-control', 'no-store').type(JSON_TYPE).send(renderRecord(record));
          },
        },
      },
    },
    {
      url: `/${plural}/auth/verify/resend/`,
      policy: { public: true },
      operations: {
        POST: {
          docs: docs.resend,
          async handler(request, reply) {
            const to = resendTarget(plural, accountOf(request), request.body);
            if (!mail.available) throw mailUnavailable();
            await countResend(resends, [
              [`resend:${plural}:${to.key}`, RESENDS_PER_ACCOUNT],
              [`resend:${addressKey(request)}`, RESENDS_PER_ADDRESS],
            ]);
            // By address, the same work whatever it is: the sender looks the account up.
            if (to.accountId === undefined || !(await store.accounts.isVerified(plural, to.accountId))) {
              const { accountId, address } = to;
              const entry = {
                kind: 'verify' as const,
                collection: plural,
                ...(accountId && { accountId }),
                ...(address && { address }),
              };
              // Asked by address, it is due a random moment later, as a reset's is.
              const due = address === undefined ? Date.now() : addressMailDue(Date.now());
              await store.mail.enqueue(entry, due);
              mail.queued(due);
            }
            return reply.code(202).send();
          },
        },
      },
    },
  ]);
}

/**
 * Whom a resend is for: the signed-in account of this collection, else the account the body's
 * `email` names (if any: the answer is the same either way).
 */
function resendTarget(
  plural: string,
  auth: Readonly<Record<string, unknown>> | undefined,
  body: unknown,
): { key: string; accountId?: number; address?: string } {
  if (auth?.collection === plural && typeof auth.id === 'number') return { key: String(auth.id), accountId: auth.id };
  const { email } = body === undefined || body === null ? {} : clientFields(body);
  if (typeof email === 'string' && email.length > 0 && email.length <= 320) {
    return { key: `email:${email.toLowerCase()}`, address: email };
  }
  throw new HttpProblem('unauthorized', `This needs the access token of one of ${plural}, or an "email".`, {
    headers: { 'www-authenticate': 'Bearer realm="restock"' },
  });
}

/** Counts a resend under each key, unless one of them has had its most in the window (429). */
async function countResend(counts: WindowCounts, limits: readonly (readonly [string, number])[]): Promise<void> {
  const seen = await Promise.all(limits.map(([key]) => counts.read(key)));
  const over = seen.filter(({ count }, index) => count >= (limits[index]?.[1] ?? 0));
  if (over.length > 0) {
    const retryAfter = Math.max(1, Math.ceil(Math.max(...over.map(({ leftMs }) => leftMs)) / 1000));
    throw new Refusal(
      'too-many-requests',
      `Too many resends for this account or from this address; retry in ${retryAfter} s.`,
      {
        retryAfter,
      },
    );
  }
  await Promise.all(limits.map(([key]) => counts.add(key)));
}
