/**
 * The link a mail carries: the app's page (APP_URL, by default the server's own console)
 * with `action`, `collection` and `token` in its query, so that one page handles every flow
 * and the token shows as `token=<token>` in the mail's text.
 */
import type { MailKind } from '../../store/mail-model.js';

/** What the page is asked to do with a kind of mail's token. */
const ACTIONS: Record<MailKind, string | undefined> = {
  verify: 'verify',
  'reset-request': 'reset',
  'email-change': 'email',
  'email-changed': undefined,
};

/** The link of a mail of `kind` carrying `token`, or '' for a kind that carries none. */
export function mailLink(base: string, kind: MailKind, collection: string, token: string | undefined): string {
  const action = ACTIONS[kind];
  if (action === undefined || token === undefined) return '';
  const query = new URLSearchParams({ action, collection, token }).toString();
  const joiner = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${joiner}${query}`;
}
