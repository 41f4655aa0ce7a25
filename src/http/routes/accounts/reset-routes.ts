/**
 * Password reset, for an account collection with an email field: `POST reset/` `{ email }`
 * answers 202 after the same work whatever the address (a mail queued, looked up only when
 * it is sent); `POST reset/confirm/` `{ token, password, signIn? }` sets the password and
 * revokes every session: 204, or 200 with new tokens when the app asks to sign in.
 */

import type { AccountDocs } from '../../../api/openapi/account-operations.js';
import type { Collection } from '../../../core/collection.js';
import {
  confirmReset,
  requestReset,
  resetAddress,
  resetConfirmation,
  tokenSubject,
} from '../../../records/accounts/index.js';
import { mailUnavailable } from '../../../records/operations/index.js';
import type { PathEntry } from '../../paths.js';
import { objectBody } from '../../plugins/json-body.js';
import { addressKey } from '../../plugins/rate-limit/index.js';
import type { FlowDeps } from './flow-deps.js';
import { sendTokens } from './send-tokens.js';

export function resetPaths(collection: Collection, deps: FlowDeps, docs: AccountDocs): PathEntry[] {
  const { store, hasher, tokens } = deps;
  const limit = { counts: deps.resetRequests, max: deps.maxResetRequests };
  return [
    {
      url: `/${collection.plural}/auth/reset/`,
      policy: { public: true },
      operations: {
        POST: {
          docs: docs.resetRequest,
          async handler(request, reply) {
            const address = resetAddress(objectBody(request.body));
            if (!deps.mail.available) throw mailUnavailable();
            const due = await requestReset(
              store,
              collection,
              { address, client: addressKey(request), now: Date.now() },
              limit,
            );
            deps.mail.queued(due);
            return reply.code(202).send();
          },
        },
      },
    },
    {
      url: `/${collection.plural}/auth/reset/confirm/`,
      policy: { public: true },
      operations: {
        POST: {
          docs: docs.resetConfirm,
          async handler(request, reply) {
            const confirmation = resetConfirmation(collection, objectBody(request.body));
            const at = { now: Date.now(), address: addressKey(request) };
            const record = await confirmReset(store, hasher, collection, confirmation, at);
            if (!confirmation.signIn) return reply.code(204).send();
            return sendTokens(
              reply,
              await tokens.issue(await tokenSubject(store.accounts, collection, record)),
              record,
            );
          },
        },
      },
    },
  ];
}
