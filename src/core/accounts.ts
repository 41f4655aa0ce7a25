/**
 * Account collections: a schema that says `"x-auth": { "claims": ["role"] }` holds accounts,
 * which sign in with one of their unique fields and a password. The password is not one of
 * the record's fields: it is taken from a create or change, checked on its own, kept only
 * as a slow hash beside the record (src/store/sql/accounts/account-tables.ts), and never returned.
 */

/** What makes a collection hold accounts. */
export interface AccountSettings {
  /** Record fields copied into the access token as claims (and so into rules' `auth.*`). */
  readonly claims: readonly string[];
  /**
   * The unique field holding the account's email address: `x-auth.email`, else `email` when
   * the schema declares it. Password reset, verification and a provider's sign-in find
   * accounts by it.
   */
  readonly email?: string;
  /** `email`: an account proves its address (`auth.verified`), and a new address is proven before it applies. */
  readonly verify?: 'email';
  /** The collection's own mail, per template, in place of restock's (`x-auth.mail`). */
  readonly mail?: Readonly<Partial<Record<MailTemplateName, MailTemplate>>>;
}

/** The mail an account collection may word its own way: verification, reset, email change (new and old address). */
export const MAIL_TEMPLATE_NAMES = ['verify', 'reset', 'email-change', 'email-changed'] as const;
export type MailTemplateName = (typeof MAIL_TEMPLATE_NAMES)[number];

/**
 * A mail's words: `{{appName}}`, `{{link}}`, `{{token}}` and `{{email}}` are filled in (escaped
 * in `html`). A part left out is restock's own.
 */
export interface MailTemplate {
  readonly subject?: string;
  readonly text?: string;
  readonly html?: string;
}

const templateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    subject: { type: 'string', minLength: 1, maxLength: 998 },
    text: { type: 'string', minLength: 1, maxLength: 100_000 },
    html: { type: 'string', minLength: 1, maxLength: 100_000 },
  },
};

/** The field a create or change carries an account's password in. */
export const PASSWORD_FIELD = 'password';

/** What a password must be when the schema does not say (`properties.password`). */
export const DEFAULT_PASSWORD_SCHEMA = { type: 'string', minLength: 8, maxLength: 1024 } as const;

/**
 * The longest password restock hashes, whatever the schema says: hashing is the costliest
 * work one request can ask for, and it must stay bounded.
 */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * Claims a token carries for restock itself; a record field of the same name would be
 * taken for them. `collection` says which account collection signed the holder in.
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  'sub',
  'exp',
  'iat',
  'nbf',
  'iss',
  'aud',
  'jti',
  'kid',
  'id',
  'collection',
  'verified',
]);

export const AUTH_META_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    claims: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,62}$' } },
    email: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,62}$' },
    verify: { enum: ['email'] },
    mail: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(MAIL_TEMPLATE_NAMES.map((name) => [name, templateSchema])),
    },
  },
};

/**
 * The account settings `x-auth` declares (already checked against {@link AUTH_META_SCHEMA})
 * in a schema whose unique fields are `unique`, or undefined when it declares none. `fail`
 * says what is wrong.
 */
export function accountSettingsOf(
  raw: unknown,
  document: Readonly<Record<string, unknown>>,
  unique: readonly string[],
  fail: (why: string) => Error,
): AccountSettings | undefined {
  if (raw === undefined) return undefined;
  const declared = raw as Pick<AccountSettings, 'email' | 'verify' | 'mail'> & { claims?: string[] };
  const properties = (document.properties ?? {}) as Record<string, unknown>;
  const email = declared.email ?? (Object.hasOwn(properties, 'email') ? 'email' : undefined);
  if (email !== undefined && !unique.includes(email)) {
    throw fail(`x-auth: the email field "${email}" must be unique (list it in x-unique)`);
  }
  if (declared.verify && email === undefined) throw fail('x-auth: verify needs an email field (x-auth.email)');
  const claims = (declared.claims ?? []).slice();
  for (const claim of claims) {
    if (RESERVED_CLAIMS.has(claim)) throw fail(`x-auth: the claim "${claim}" is one restock sets itself`);
    if (claim === PASSWORD_FIELD) throw fail('x-auth: the password can never be a claim');
  }
  return Object.freeze({
    claims: Object.freeze(claims),
    ...(email !== undefined && { email }),
    ...(declared.verify && { verify: declared.verify }),
    ...(declared.mail && { mail: Object.freeze({ ...declared.mail }) }),
  });
}

/**
 * The schema a record of an account collection is checked against: the document without its
 * password, which is checked apart ({@link passwordSchemaOf}) and never stored with the record.
 */
export function withoutPassword(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const properties = { ...((document.properties ?? {}) as Record<string, unknown>) };
  delete properties[PASSWORD_FIELD];
  const required = Array.isArray(document.required)
    ? (document.required as unknown[]).filter((name) => name !== PASSWORD_FIELD)
    : undefined;
  return { ...document, properties, ...(required && { required }) };
}

/** The schema a password is checked against: the one the document declares for it, or the default. */
export function passwordSchemaOf(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const declared = (document.properties as Record<string, unknown> | undefined)?.[PASSWORD_FIELD];
  return typeof declared === 'object' && declared !== null
    ? { ...(declared as Record<string, unknown>) }
    : { ...DEFAULT_PASSWORD_SCHEMA };
}
