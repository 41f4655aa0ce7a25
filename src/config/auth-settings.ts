/** The settings of accounts and their tokens, declared in their place among ./settings.ts's. */
import { ConfigError } from '../core/config-error.js';
import { integer, type Parser, text } from './parsers.js';
import type { Setting } from './setting.js';

/** scrypt's cost as PASSWORD_HASH_COST gives it: log2 of N, then r, then p. */
export interface PasswordHashCost {
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}

const hashCost: Parser<PasswordHashCost> = (raw, name) => {
  const parts = raw.split(',').map((part) => Number(part.trim()));
  const [logN = 0, r = 0, p = 0] = parts;
  const fits = parts.length === 3 && parts.every(Number.isInteger);
  if (!fits || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) {
    throw new ConfigError(
      `${name} must be three integers, "log2(N),r,p" (log2(N) 10 to 20, r 1 to 32, p 1 to 16), got "${raw}"`,
    );
  }
  return { logN, r, p };
};

const httpsUrl: Parser<string> = (raw, name) => {
  if (raw !== '' && !/^https?:\/\/\S+$/.test(raw)) throw new ConfigError(`${name} must be an http(s) URL`);
  return raw;
};

export const AUTH_SETTINGS = {
  accessTokenMinutes: {
    default: '15',
    parse: integer(1, 24 * 60),
    group: 'server',
    help: 'minutes an account’s access token is valid; a client renews it with its refresh token',
  },
  refreshTokenDays: {
    default: '30',
    parse: integer(1, 365),
    group: 'server',
    help: 'days a refresh token is valid; each use gives a new one, and a second use of one signs its holder out everywhere',
  },
  passwordHashCost: {
    default: '15,8,3',
    parse: hashCost,
    group: 'server',
    help: 'scrypt’s cost for account passwords, `log2(N),r,p`; hashes made at an earlier cost are still checked',
  },
  passwordHashBudget: {
    default: '100',
    parse: integer(0, 1_000_000),
    group: 'server',
    help: 'passwords checked or hashed (sign-ins, whether right or wrong, sign-ups, password changes) per client address, and per account, per 15 minutes in this process (`429` past it); API keys have no such budget; `0`: none',
  },
  resetTokenMinutes: {
    default: '30',
    parse: integer(5, 24 * 60),
    group: 'server',
    help: 'minutes a password reset link is valid; only the newest one asked for works, and only once',
  },
  signInMaxFailures: {
    default: '10',
    parse: integer(1, 1_000_000),
    group: 'server',
    help: 'failed sign-ins allowed per account, and per client address, per 15 minutes (`429` past it; shared through REDIS_URL); password reset requests are counted apart, per address asked for and per client address, against the same number',
  },
  authIssuer: {
    default: '',
    parse: text,
    group: 'server',
    help: 'an outside identity provider’s issuer (`iss`), whose tokens are accepted beside restock’s own; needs AUTH_AUDIENCE and AUTH_JWKS_URL or AUTH_PUBLIC_KEY_FILE',
  },
  authAudience: {
    default: '',
    parse: text,
    group: 'server',
    help: 'the audience (`aud`) an outside provider’s tokens must name',
  },
  authJwksUrl: {
    default: '',
    parse: httpsUrl,
    group: 'server',
    help: 'where the outside provider publishes its keys (JWKS), read and cached as needed',
  },
  authPublicKeyFile: {
    default: '',
    parse: text,
    group: 'server',
    help: 'a PEM file of the outside provider’s public key, in place of AUTH_JWKS_URL',
  },
} satisfies Record<string, Setting<unknown>>;
