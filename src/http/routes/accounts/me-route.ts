/**
 * Who am I: `GET /<plural>/auth/` answers the caller's own account, as its token names it.
 * Without a token, or with one that names no account of this collection (anymore), 401;
 * a key is a service's credential, not an account: 403. Any operation on the caller's own
 * account is made the same way (a file token's, ./file-token-route.ts).
 */
import type { FastifyReply } from 'fastify';
import type { Catalog } from '../../../core/catalog.js';
import type { Collection } from '../../../core/collection.js';
import type { Records, StoredRecord } from '../../../store/store.js';
import type { Operation } from '../../paths.js';
import { accountOf, credentialOf } from '../../plugins/access-control/access-control.js';
import { HttpProblem } from '../../problem.js';
import { sendRecord } from '../records/record-response.js';

const REALM = 'Bearer realm="restock"';

/** What an account's own routes read: the collection, its records, and the catalog a token's collection is found in. */
export interface OwnAccount {
  readonly catalog: Pick<Catalog, 'byPlural'>;
  readonly collection: Collection;
  readonly records: Records;
}

export function meOperation(account: OwnAccount, docs: Operation['docs']): Operation {
  return ownAccountOperation(account, docs, 'says who it is', (record, reply) =>
    sendRecord(reply.header('cache-control', 'no-store'), 200, record),
  );
}

/**
 * An operation on the account whose access token the request carries, when it is one of
 * the collection: `answer` gets its record. Else 401 (no token, another collection's, an
 * account since deleted), and 403 for an API key, which is no account: only an account's
 * token `does` what the operation does.
 */
export function ownAccountOperation(
  { catalog, collection, records }: OwnAccount,
  docs: Operation['docs'],
  does: string,
  answer: (record: StoredRecord, reply: FastifyReply) => Promise<FastifyReply> | FastifyReply,
): Operation {
  return {
    ...(docs && { docs }),
    async handler(request, reply) {
      if (credentialOf(request)) {
        throw new HttpProblem('forbidden', `An API key is no account: only an account's token ${does}.`);
      }
      const auth = accountOf(request);
      // A token of another collection names no account of this one.
      const id = auth && catalog.byPlural(String(auth.collection)) === collection ? auth.id : undefined;
      const record = typeof id === 'number' ? await records.get(id) : undefined;
      if (!record) {
        throw new HttpProblem('unauthorized', `Send the access token of an account of ${collection.plural}.`, {
          headers: { 'www-authenticate': REALM },
        });
      }
      return answer(record, reply);
    },
  };
}
