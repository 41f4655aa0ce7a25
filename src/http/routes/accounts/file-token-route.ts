/**
 * A file token: `POST /<plural>/auth/file-token/` gives a signed-in account of the
 * collection a short-lived token that stands for it on file downloads alone, as `?token=`
 * (an `<img src>` or a link cannot carry Authorization). It is made from the account as it
 * is now, as a sign-in's token is, so its claims are current. Without an access token of
 * this collection, 401; an API key is no account: 403.
 */
import type { Catalog } from '../../../core/catalog.js';
import type { Collection } from '../../../core/collection.js';
import { type TokenService, tokenSubject } from '../../../records/accounts/index.js';
import type { Records, Store } from '../../../store/store.js';
import type { Operation } from '../../paths.js';
import { accountOf, credentialOf } from '../../plugins/access-control/access-control.js';
import { HttpProblem } from '../../problem.js';

const REALM = 'Bearer realm="restock"';

export function fileTokenOperation(
  { catalog, store, tokens }: { catalog: Pick<Catalog, 'byPlural'>; store: Store; tokens: TokenService },
  collection: Collection,
  records: Records,
  docs: Operation['docs'],
): Operation {
  return {
    ...(docs && { docs }),
    async handler(request, reply) {
      if (credentialOf(request)) {
        throw new HttpProblem('forbidden', 'An API key is no account: only an account gets a file token.');
      }
      const auth = accountOf(request);
      // A token of another collection (or an outside provider's) names no account of this one.
      const id = auth && catalog.byPlural(String(auth.collection)) === collection ? auth.id : undefined;
      const record = typeof id === 'number' ? await records.get(id) : undefined;
      if (!record) {
        throw new HttpProblem('unauthorized', `Send the access token of an account of ${collection.plural}.`, {
          headers: { 'www-authenticate': REALM },
        });
      }
      const issued = await tokens.fileToken(await tokenSubject(store.accounts, collection, record));
      return reply.code(200).header('cache-control', 'no-store').send(issued);
    },
  };
}
