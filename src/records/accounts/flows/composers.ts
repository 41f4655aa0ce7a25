/**
 * The composers of account mail, one per kind, in one list: each turns an outbox entry
 * (which holds no secret) into a letter when the mail is sent, minting the flow's token
 * then, so that the outbox never holds one, and a retry after a crash mints a new token that
 * supersedes the old. Each kind's composer belongs to its flow: the verification's is here;
 * the reset's and the email change's are in ./flow-letters.ts.
 */
import type { MailKind, OutboxMail } from '../../../store/mail-model.js';
import type { ComposeMail, Letter, MailComposers } from '../../mail/index.js';
import { type FlowLetterOptions, flowLetters } from './flow-letters.js';
import { emailFieldOf, issueFlowToken } from './flow-tokens.js';

/** What the flows' letters need (./flow-letters.ts: the store, the catalog, the reset link's life, the clock), and the verification's. */
export interface ComposerDeps extends Omit<FlowLetterOptions, 'emailTokenMs'> {
  /** How long a verification link is valid (VERIFY_TOKEN_HOURS); an email change's link too. */
  readonly verifyTokenMs: number;
}

/** Every kind's composer. */
export function mailComposers(deps: ComposerDeps): MailComposers {
  return {
    verify: composeVerify(deps),
    ...flowLetters({ ...deps, emailTokenMs: deps.verifyTokenMs }),
  } satisfies Record<MailKind, ComposeMail>;
}

/**
 * A sign-up's (or a resend's) verification: a token for the account, to its address as its
 * record holds it now; nothing for an account deleted since, or verified already.
 */
function composeVerify({ store, catalog, verifyTokenMs, now = Date.now }: ComposerDeps): ComposeMail {
  return async (mail: OutboxMail): Promise<Letter | undefined> => {
    const account = await accountOf({ store, catalog }, mail);
    if (!account || (await store.accounts.isVerified(mail.collection, account.id))) return undefined;
    const token = await issueFlowToken(store.accounts, {
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
