/**
 * The letters of a password reset and an email change, composed when the mail is sent (by
 * src/records/mail/, from the outbox): each looks up what it needs then, and mints its
 * token then, so that the outbox never holds one and a retry mints a new one that
 * supersedes the last.
 * - `reset-request`: the account with the address asked for, if any; none, nothing is sent
 *   (the request answered the same either way). Its token: purpose `reset`, RESET_TOKEN_MINUTES.
 * - `email-change`: to the new address, a token of purpose `email` carrying that address.
 * - `email-changed`: to the old address, no token: it tells the owner, who can reset the
 *   password if the change was not theirs.
 */
import type { Catalog } from '../../../core/catalog.js';
import type { OutboxMail } from '../../../store/mail-model.js';
import type { Store } from '../../../store/store.js';
import type { ComposeMail } from '../../mail/index.js';
import { emailFieldOf, issueFlowToken } from './flow-tokens.js';

export interface FlowLetterOptions {
  readonly store: Pick<Store, 'collection' | 'accounts'>;
  readonly catalog: Pick<Catalog, 'byPlural'>;
  /** How long a reset token lives (RESET_TOKEN_MINUTES). */
  readonly resetTokenMs: number;
  /** How long an email change's token lives. */
  readonly emailTokenMs: number;
  readonly now?: () => number;
}

export function flowLetters(
  options: FlowLetterOptions,
): Record<'reset-request' | 'email-change' | 'email-changed', ComposeMail> {
  const { store, catalog, now = Date.now } = options;
  const accountsOf = (mail: OutboxMail) => {
    const collection = catalog.byPlural(mail.collection);
    return collection?.account ? collection : undefined;
  };
  return {
    async 'reset-request'(mail) {
      const collection = accountsOf(mail);
      const field = collection && emailFieldOf(collection);
      if (!collection || !field || mail.address === null) return undefined;
      const account = await store.collection(collection).findUnique(field, mail.address);
      const to = account && (JSON.parse(account.data) as Record<string, unknown>)[field.path.join('.')];
      if (!account || typeof to !== 'string') return undefined;
      const expiresAt = now() + options.resetTokenMs;
      const token = await issueFlowToken(store.accounts, {
        purpose: 'reset',
        collection: collection.plural,
        accountId: account.id,
        detail: null,
        expiresAt,
      });
      return { to, kind: mail.kind, collection: collection.plural, token };
    },
    async 'email-change'(mail) {
      const collection = accountsOf(mail);
      if (!collection || mail.accountId === null || mail.address === null) return undefined;
      // An account deleted since asked for nothing more.
      if (!(await store.collection(collection).get(mail.accountId))) return undefined;
      const token = await issueFlowToken(store.accounts, {
        purpose: 'email',
        collection: collection.plural,
        accountId: mail.accountId,
        detail: mail.address,
        expiresAt: now() + options.emailTokenMs,
      });
      return { to: mail.address, kind: mail.kind, collection: collection.plural, token };
    },
    async 'email-changed'(mail) {
      const collection = accountsOf(mail);
      if (!collection || mail.address === null) return undefined;
      return { to: mail.address, kind: mail.kind, collection: collection.plural };
    },
  };
}
