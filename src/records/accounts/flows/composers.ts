/**
 * The composers of account mail, one per kind, in one list: each turns an outbox entry
 * (which holds no secret) into a letter when the mail is sent, minting the flow's token
 * then, so that the outbox never holds one, and a retry after a crash mints a new token that
 * supersedes the old. Each kind's composer belongs to its flow: the verification's is here;
 * the reset's and the email change's are filled in by those flows (until then they send
 * nothing, and no route queues them).
 */
import type { Catalog } from '../../../core/catalog.js';
import type { MailKind, OutboxMail } from '../../../store/mail-model.js';
import type { Store } from '../../../store/store.js';
import type { ComposeMail, Letter, MailComposers } from '../../mail/index.js';
import { emailFieldOf, mintFlowToken } from './flow-tokens.js';

export interface ComposerDeps {
  readonly store: Pick<Store, 'accounts' | 'collection'>;
  readonly catalog: Pick<Catalog, 'byPlural'>;
  /** How long a verification link is valid (VERIFY_TOKEN_HOURS). */
  readonly verifyTokenMs: number;
  readonly now?: () => number;
}

/** Every kind's composer. */
export function mailComposers(deps: ComposerDeps): MailComposers {
  return {
    verify: composeVerify(deps),
    // Filled in by the password reset and email change flows.
    'reset-request': nothingToSend,
    'email-change': nothingToSend,
    'email-changed': nothingToSend,
  } satisfies Record<MailKind, ComposeMail>;
}

const nothingToSend: ComposeMail = async () => undefined;

/**
 * A sign-up's (or a resend's) verification: a token for the account, to its address as its
 * record holds it now; nothing for an account deleted since, or verified already.
 */
function composeVerify({ store, catalog, verifyTokenMs, now = Date.now }: ComposerDeps): ComposeMail {
  return async (mail: OutboxMail): Promise<Letter | undefined> => {
    const account = await accountOf({ store, catalog }, mail);
    if (!account || (await store.accounts.isVerified(mail.collection, account.id))) return undefined;
    const { token, hash } = mintFlowToken();
    await store.accounts.addFlowToken({
      hash,
      purpose: 'verify',
      collection: mail.collection,
      accountId: account.id,
      detail: null,
      expiresAt: now() + verifyTokenMs,
    });
    return { to: account.email, kind: 'verify', collection: mail.collection, token };
  };
}

/**
 * The account a mail names, by its id or (a resend asked for by address: nothing when no
 * account has it) by its email field, with its address as its record holds it.
 */
export async function accountOf(
  { store, catalog }: Pick<ComposerDeps, 'store' | 'catalog'>,
  mail: OutboxMail,
): Promise<{ id: number; email: string } | undefined> {
  const collection = catalog.byPlural(mail.collection);
  const field = collection && emailFieldOf(collection);
  if (!collection || !field) return undefined;
  const records = store.collection(collection);
  const record =
    mail.accountId !== null
      ? await records.get(mail.accountId)
      : mail.address !== null
        ? await records.findUnique(field, mail.address)
        : undefined;
  const email = record && (JSON.parse(record.data) as Record<string, unknown>)[field.path.join('.')];
  return record && typeof email === 'string' ? { id: record.id, email } : undefined;
}
