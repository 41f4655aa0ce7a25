/**
 * Confirming an email change: `POST email/confirm/` `{ token }` applies the new address the
 * token was mailed to (a change by the account queued it, src/records/accounts/flows/) and
 * answers the account as changed; 409 if another account took the address meanwhile.
 */
import type { AccountDocs } from '../../../api/openapi/account-operations.js';
import type { Collection } from '../../../core/collection.js';
import { confirmEmailChange, emailConfirmation } from '../../../records/accounts/index.js';
import type { PathEntry } from '../../paths.js';
import { objectBody } from '../../plugins/json-body.js';
import { sendRecord } from '../records/record-response.js';
import type { FlowDeps } from './flow-deps.js';

export function emailPaths(collection: Collection, deps: FlowDeps, docs: AccountDocs): PathEntry[] {
  return [
    {
      url: `/${collection.plural}/auth/email/confirm/`,
      policy: { public: true },
      operations: {
        POST: {
          docs: docs.emailConfirm,
          async handler(request, reply) {
            const hash = emailConfirmation(objectBody(request.body));
            const record = await confirmEmailChange(deps.store, collection, hash, Date.now());
            return sendRecord(reply, 200, record);
          },
        },
      },
    },
  ];
}
