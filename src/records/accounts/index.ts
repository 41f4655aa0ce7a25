/**
 * Accounts, without HTTP or SQL: the one entry every other folder imports them through.
 * Passwords (taken out of records, hashed with scrypt in a fair share and a budget per
 * address and account), sign-in (one answer for every failure, failed sign-ins counted per
 * name and address), tokens (access tokens, refresh tokens, signing keys, an outside
 * provider's tokens) and the check of a bearer token that remembers tokens until they expire;
 * `openAccounts` makes them once from the settings. Sign-in with an outside provider
 * (OpenID Connect, through openid-client) is in providers/. What a schema's `x-auth` declares is read
 * with the catalog, in src/core/accounts.ts; the tables are the store's (src/store/sql/accounts/).
 */
export { PASSWORD_FIELD, passwordSchemaOf, withoutPassword } from '../../core/accounts.js';
export {
  type AccountChanges,
  accountChanges,
  CURRENT_PASSWORD_FIELD,
} from './flows/account-change.js';
export { accountOf, type ComposerDeps, mailComposers } from './flows/composers.js';
export { confirmEmailChange, emailConfirmation } from './flows/email-change.js';
export { flowTokenHash, invalidToken, sentTokenHash } from './flows/flow-tokens.js';
export {
  addressMailDue,
  confirmReset,
  requestReset,
  resetAddress,
  resetConfirmation,
} from './flows/password-reset.js';
export { type Accounts, openAccounts } from './open-accounts.js';
export { refusePasswordInBulk, takePassword } from './password-field.js';
export { type HashCost, hashPassword, isPasswordHash } from './password-hash.js';
export type { PasswordHasher } from './password-hasher.js';
export { appRedirect } from './providers/app-redirect.js';
export { providersByCollection } from './providers/provider-catalog.js';
export { ProviderSignIn } from './providers/provider-sign-in.js';
export { invalidCredentials, signIn, signInName, tokenSubject } from './sign-in.js';
export { FAILURE_WINDOW_MS, type FailureCounts, limitFailures, memoryFailures, redisCounts } from './sign-in-limit.js';
export {
  CLOCK_TOLERANCE_SECONDS,
  type IssuedTokens,
  openTokenService,
  rotateSigningKeys,
  type TokenOptions,
  type TokenService,
} from './token-service.js';
export type { VerifiedToken, VerifiedTokens } from './verified-tokens.js';
export { memoryCounts, type WindowCounts } from './window-counts.js';
