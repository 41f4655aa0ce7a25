/**
 * What accounts need, made once per app from the settings: the token service (over the
 * store's signing keys and refresh tokens), the password hasher, and the check of a
 * bearer token, which remembers tokens it has verified until they expire, so that a
 * signed-in client's requests cost a lookup, not a signature check each.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../../config/index.js';
import type { Catalog } from '../../core/catalog.js';
import { ConfigError } from '../../core/config-error.js';
import type { Store } from '../../store/store.js';
import { PasswordHasher } from './password-hasher.js';
import { type OutsideProvider, openTokenService, type TokenService } from './token-service.js';
import { VerifiedTokens } from './verified-tokens.js';

export interface Accounts {
  readonly tokens: TokenService;
  /** Absent when only an outside provider's tokens are accepted (no collection holds accounts). */
  readonly hasher?: PasswordHasher;
  /** Bearer tokens, checked once and then known until they expire. */
  readonly verified: VerifiedTokens;
  /** File tokens (a download's `?token=`), likewise. */
  readonly verifiedFiles: VerifiedTokens;
}

type AccountSettings = Pick<
  Config,
  | 'accessTokenMinutes'
  | 'refreshTokenDays'
  | 'fileTokenSeconds'
  | 'passwordHashCost'
  | 'passwordHashBudget'
  | 'authIssuer'
  | 'authAudience'
  | 'authJwksUrl'
  | 'authPublicKeyFile'
>;

/** The accounts of `catalog`, or undefined when no collection holds accounts and no provider is trusted. */
export async function openAccounts(
  config: AccountSettings,
  catalog: Catalog,
  store: Store,
): Promise<Accounts | undefined> {
  const anyAccounts = catalog.collections.some((collection) => collection.account);
  const outside = outsideProvider(config);
  if (!anyAccounts && !outside) return undefined;
  const tokens = await openTokenService(store.accounts, {
    holdsAccounts: (plural) => catalog.byPlural(plural)?.account !== undefined,
    accessTokenSeconds: config.accessTokenMinutes * 60,
    refreshTokenSeconds: config.refreshTokenDays * 24 * 3600,
    fileTokenSeconds: config.fileTokenSeconds,
    ...(outside && { outside }),
  });
  const verified = new VerifiedTokens((token) => tokens.verify(token));
  return {
    tokens,
    ...(anyAccounts && {
      hasher: new PasswordHasher({ cost: config.passwordHashCost, budget: config.passwordHashBudget }),
    }),
    verified,
    verifiedFiles: new VerifiedTokens((token) => tokens.verifyFile(token)),
  };
}

function outsideProvider(config: AccountSettings): OutsideProvider | undefined {
  const { authIssuer: issuer, authAudience: audience, authJwksUrl: jwksUrl, authPublicKeyFile: keyFile } = config;
  if (issuer === '' && audience === '' && jwksUrl === '' && keyFile === '') return undefined;
  if (issuer === '' || audience === '' || (jwksUrl === '') === (keyFile === '')) {
    throw new ConfigError(
      'an outside identity provider needs AUTH_ISSUER, AUTH_AUDIENCE, and one of AUTH_JWKS_URL or AUTH_PUBLIC_KEY_FILE',
    );
  }
  if (jwksUrl !== '') return { issuer, audience, jwksUrl };
  try {
    return { issuer, audience, publicKey: readFileSync(keyFile, 'utf8') };
  } catch (error) {
    throw new ConfigError(`AUTH_PUBLIC_KEY_FILE: cannot read ${keyFile} (${(error as NodeJS.ErrnoException).code})`);
  }
}
