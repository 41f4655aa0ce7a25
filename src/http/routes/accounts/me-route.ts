/**
 * Who am I: `GET /<plural>/auth/` answers the caller's own account, as its token names it.
 * Without a token, or with one that names no account of this collection (anymore), 401;
 * a key is a service's credential, not an account: 403.
 */
import type { Catalog } from '../../../core/catalog.js';
import type { Collection } from '../../../core/collection.js';
import type { Records } from '../../../store/store.js';
import type { Operation } from '../../paths.js';
import { accountOf, credentialOf } from '../../plugins/access-control/access-control.js';
import { HttpProblem } from '../../problem.js';
import { sendRecord } from '../records/record-response.js';

const REALM = 'Bearer realm="restock"';

export function meOperation(
  catalog: Pick<Catalog, 'byPlural'>,
  collection: Collection,
  records: Records,
  docs: Operation['docs'],
): Operation {
  return {
    ...(docs && { docs }),
    async handler(request, reply) {
      if (credentialOf(request)) {
        throw new HttpProblem('forbidden', `An API key is no account: only an account's token says who it is.`);
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
      return sendRecord(reply.header('cache-control', 'no-store'), 200, record);
    },
  };
}
