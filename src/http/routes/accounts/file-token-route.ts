/**
 * A file token: `POST /<plural>/auth/file-token/` gives a signed-in account of the
 * collection a short-lived token that stands for it on file downloads alone, as `?token=`
 * (an `<img src>` or a link cannot carry Authorization). It is made from the account as it
 * is now, as a sign-in's token is, so its claims are current. Without an access token of
 * this collection, 401; an API key is no account: 403.
 */
import { type TokenService, tokenSubject } from '../../../records/accounts/index.js';
import type { Store } from '../../../store/store.js';
import type { Operation } from '../../paths.js';
import { type OwnAccount, ownAccountOperation } from './me-route.js';

export function fileTokenOperation(
  { store, tokens }: { store: Store; tokens: TokenService },
  account: OwnAccount,
  docs: Operation['docs'],
): Operation {
  return ownAccountOperation(account, docs, 'gets a file token', async (record, reply) => {
    const issued = await tokens.fileToken(await tokenSubject(store.accounts, account.collection, record));
    return reply.code(200).header('cache-control', 'no-store').send(issued);
  });
}
