/**
 * What a mail says: restock's words for each kind, or the account collection's own
 * (`x-auth.mail.<name>`), with `{{appName}}`, `{{link}}`, `{{token}}` and `{{email}}` filled
 * in. The substitution is written by hand, not a template engine: four names, no logic, and
 * nothing a schema's author writes is ever run.
 */
import type { MailTemplate, MailTemplateName } from '../../core/accounts.js';
import type { MailKind } from '../../store/mail-model.js';

/** A mail ready to send. */
export interface RenderedMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** What the placeholders stand for in one mail. */
export interface MailValues {
  readonly appName: string;
  readonly email: string;
  /** The link the mail's reader follows; '' for a mail without one (an email change told to the old address). */
  readonly link: string;
  readonly token: string;
}

type FullTemplate = Required<MailTemplate>;

const DEFAULTS: Record<MailTemplateName, FullTemplate> = {
  verify: {
    subject: 'Confirm your email address for {{appName}}',
    text: 'Welcome to {{appName}}.\n\nConfirm your email address ({{email}}) by opening this link:\n\n{{link}}\n\nIf you did not sign up, ignore this mail.\n',
    html: '<p>Welcome to {{appName}}.</p><p>Confirm your email address ({{email}}) by opening this link:</p><p><a href="{{link}}">{{link}}</a></p><p>If you did not sign up, ignore this mail.</p>',
  },
  reset: {
    subject: 'Reset your {{appName}} password',
    text: 'Someone asked to reset the password of the {{appName}} account of {{email}}.\n\nSet a new password by opening this link:\n\n{{link}}\n\nIf it was not you, ignore this mail: your password stays as it is.\n',
    html: '<p>Someone asked to reset the password of the {{appName}} account of {{email}}.</p><p>Set a new password by opening this link:</p><p><a href="{{link}}">{{link}}</a></p><p>If it was not you, ignore this mail: your password stays as it is.</p>',
  },
  'email-change': {
    subject: 'Confirm your new email address for {{appName}}',
    text: 'Confirm {{email}} as the address of your {{appName}} account by opening this link:\n\n{{link}}\n\nIf you did not ask for it, ignore this mail.\n',
    html: '<p>Confirm {{email}} as the address of your {{appName}} account by opening this link:</p><p><a href="{{link}}">{{link}}</a></p><p>If you did not ask for it, ignore this mail.</p>',
  },
  'email-changed': {
    subject: 'Your {{appName}} email address is changing',
    text: 'Someone asked to change the email address of your {{appName}} account ({{email}}) to another one.\n\nIf it was not you, sign in and change your password now.\n',
    html: '<p>Someone asked to change the email address of your {{appName}} account ({{email}}) to another one.</p><p>If it was not you, sign in and change your password now.</p>',
  },
};

/** The template a kind of mail is written with (a reset request's mail is the reset template). */
export function templateNameOf(kind: MailKind): MailTemplateName {
  return kind === 'reset-request' ? 'reset' : kind;
}

/** The mail of `name` with `values`, each part the collection's own (`own`) or else restock's. */
export function renderMail(
  name: MailTemplateName,
  own: MailTemplate | undefined,
  values: MailValues,
): Omit<RenderedMail, 'to'> {
  const template = { ...DEFAULTS[name], ...own };
  return {
    subject: fill(template.subject, values, (text) => text.replace(/[\r\n]+/g, ' ')),
    text: fill(template.text, values, (text) => text),
    html: fill(template.html, values, escapeHtml),
  };
}

const PLACEHOLDER = /\{\{\s*(appName|email|link|token)\s*\}\}/g;

function fill(template: string, values: MailValues, quote: (text: string) => string): string {
  return template.replace(PLACEHOLDER, (_, name: keyof MailValues) => quote(values[name]));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
