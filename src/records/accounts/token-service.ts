/**
 * The token service accounts' routes call: access tokens (short-lived JWTs, ./access-tokens.ts)
 * and refresh tokens (long-lived, rotated, ./refresh-tokens.ts) for the accounts of
 * collections declared with `x-auth`, and the check of a caller's bearer token, ours or an
 * outside provider's (./outside-tokens.ts), told apart by `iss`. Every failure is one
 * answer, undefined: which check refused a token is no business of its bearer's.
 */
import { decodeJwt } from 'jose';
import type { AccountTables } from '../../store/account-model.js';
import {
  type Account,
  type Auth,
  FILE_AUDIENCE,
  OWN_ISSUER,
  signAccessToken,
  verifyOwnToken,
} from './access-tokens.js';
import { type OutsideProvider, outsideVerifier } from './outside-tokens.js';
import { revokeRefreshFamily, rotateRefreshToken, startFamily } from './refresh-tokens.js';
import { KeyRing } from './signing-keys.js';

export type { Account, Auth } from './access-tokens.js';
export { OWN_ISSUER } from './access-tokens.js';
export type { OutsideProvider } from './outside-tokens.js';
export { refreshTokenHash } from './refresh-tokens.js';
export { KEY_RELOAD_MS, type Rotation, rotateSigningKeys, SIGNING_ALG } from './signing-keys.js';

/** An access token's life by default: 15 minutes. */
export const ACCESS_TOKEN_SECONDS = 15 * 60;
/** A refresh token's life by default: 30 days (each refresh starts a new one). */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;
/** A file token's life by default: two minutes, enough to follow the link it is put in. */
export const FILE_TOKEN_SECONDS = 120;
/** How far two clocks may disagree over a token's times. */
export const CLOCK_TOLERANCE_SECONDS = 5;

/** A bearer token longer than this is no token of ours nor any provider's: not even decoded. */
const MAX_TOKEN_LENGTH = 16 * 1024;

export interface TokenOptions {
  /** Whether the collection named `plural` holds accounts (`x-auth`): tokens are issued and accepted for these only. */
  readonly holdsAccounts: (plural: string) => boolean;
  readonly accessTokenSeconds?: number;
  readonly refreshTokenSeconds?: number;
  /** A file token's life (FILE_TOKEN_SECONDS). */
  readonly fileTokenSeconds?: number;
  readonly clockToleranceSeconds?: number;
  /** An outside identity provider whose tokens are accepted too. */
  readonly outside?: OutsideProvider;
  /** The clock, in milliseconds since the epoch (tests move it). */
  readonly now?: () => number;
  /** How often the signing keys are read again (a rotation reaches the instance within it). */
  readonly keyReloadMs?: number;
  /** The least time between two reads of the keys for a token naming an unknown one. */
  readonly unknownKidReloadMs?: number;
}

/** What signing in gives: an access token, its life in seconds, and a refresh token. */
export interface IssuedTokens {
  readonly token: string;
  readonly refreshToken: string;
  readonly expiresIn: number;
}

export interface TokenService {
  /** Tokens for an account that has just proved who it is: a new access token and a new refresh family. */
  issue(account: Account): Promise<IssuedTokens>;
  /** An access token alone, for an account whose refresh token was just rotated. */
  accessToken(account: Account): Promise<{ token: string; expiresIn: number }>;
  /**
   * Uses a refresh token of `collection` up: the account's id and the next token of its
   * family, or undefined (unknown, expired, another collection's, used before: which
   * revokes its family, or of a revoked family).
   */
  refresh(collection: string, refreshToken: string): Promise<{ id: number; refreshToken: string } | undefined>;
  /** Revokes the family of a refresh token of `collection` (signing out that sign-in). */
  signOut(collection: string, refreshToken: string): Promise<void>;
  /** A file token for `account`: read as the account on downloads only, as `?token=`. */
  fileToken(account: Account): Promise<{ token: string; expiresIn: number }>;
  /** The caller a bearer token names, or undefined for any token that is not valid (a file token among them). */
  verify(token: string): Promise<Auth | undefined>;
  /** The caller a file token names, or undefined for any token that is not one, or not valid. */
  verifyFile(token: string): Promise<Auth | undefined>;
  /** Forgets refresh tokens that have expired; resolves with how many. */
  sweep(): Promise<number>;
  /** Reads the signing keys again now (it happens every `keyReloadMs` anyway). */
  reloadKeys(): Promise<void>;
}

/** Opens the token service over the store's account tables, adding a signing key if there is none. */
export async function openTokenService(accounts: AccountTables, options: TokenOptions): Promise<TokenService> {
  const now = options.now ?? Date.now;
  const accessSeconds = options.accessTokenSeconds ?? ACCESS_TOKEN_SECONDS;
  const refreshMs = (options.refreshTokenSeconds ?? REFRESH_TOKEN_SECONDS) * 1000;
  const fileSeconds = options.fileTokenSeconds ?? FILE_TOKEN_SECONDS;
  const clockToleranceSeconds = options.clockToleranceSeconds ?? CLOCK_TOLERANCE_SECONDS;
  const { holdsAccounts } = options;
  if (options.outside?.issuer === OWN_ISSUER) {
    throw new Error(`an outside provider's issuer cannot be "${OWN_ISSUER}", restock's own`);
  }
  const outside = options.outside && {
    issuer: options.outside.issuer,
    verify: outsideVerifier(options.outside, clockToleranceSeconds),
  };
  const keys = await KeyRing.open(accounts, {
    now,
    retiredAfterMs: (Math.max(accessSeconds, fileSeconds) + clockToleranceSeconds) * 1000,
    ...(options.keyReloadMs === undefined ? {} : { reloadMs: options.keyReloadMs }),
    ...(options.unknownKidReloadMs === undefined ? {} : { unknownKidReloadMs: options.unknownKidReloadMs }),
  });

  const signed = async (account: Account, seconds: number, audience?: string) => {
    if (!holdsAccounts(account.collection)) {
      throw new Error(`"${account.collection}" is not a collection of accounts`);
    }
    return { token: await signAccessToken(keys, account, seconds, now(), audience), expiresIn: seconds };
  };
  const accessToken = (account: Account) => signed(account, accessSeconds);
  const verifyOwn = (token: string, maxAgeSeconds: number, audience?: string) =>
    verifyOwnToken(keys, token, {
      holdsAccounts,
      clockToleranceSeconds,
      maxAgeSeconds,
      now: now(),
      ...(audience !== undefined && { audience }),
    });

  return {
    accessToken,
    fileToken: (account) => signed(account, fileSeconds, FILE_AUDIENCE),
    async issue(account) {
      const access = await accessToken(account);
      const refreshToken = await startFamily(accounts, account, now() + refreshMs);
      return { ...access, refreshToken };
    },
    async refresh(collection, refreshToken) {
      if (!holdsAccounts(collection) || typeof refreshToken !== 'string') return undefined;
      const at = now();
      return rotateRefreshToken(accounts, collection, refreshToken, at + refreshMs, at);
    },
    async signOut(collection, refreshToken) {
      if (!holdsAccounts(collection) || typeof refreshToken !== 'string') return;
      await revokeRefreshFamily(accounts, collection, refreshToken);
    },
    async verify(token) {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
      let issuer: unknown;
      try {
        issuer = decodeJwt(token).iss;
      } catch {
        return undefined;
      }
      if (issuer === OWN_ISSUER) return verifyOwn(token, accessSeconds);
      if (outside && issuer === outside.issuer) return outside.verify(token, now());
      return undefined;
    },
    async verifyFile(token) {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
      return verifyOwn(token, fileSeconds, FILE_AUDIENCE);
    },
    sweep: () => accounts.sweep(now()),
    reloadKeys: () => keys.reload(),
  };
}
