/**
 * What the store keeps for accounts' tokens (src/records/accounts/ reads and writes it): the
 * keys that sign access tokens, refresh tokens and flows' single-use tokens by their hash,
 * which accounts are verified, and the outside providers' subjects linked to accounts.
 * Times are milliseconds since the epoch on the token service's clock, passed in, never the
 * database's: one clock decides what has expired, and the tests can move it.
 */

/** A key that signs access tokens: its private and public halves as JWK text. */
export interface SigningKeyRow {
  readonly kid: string;
  readonly privateJwk: string;
  readonly publicJwk: string;
  readonly createdAt: number;
  /** When a newer key took its place; null while none has. */
  readonly supersededAt: number | null;
}

/** A new refresh token, the first of a new family. */
export interface NewRefreshToken {
  /** The token's SHA-256, base64url: the token itself is never stored. */
  readonly hash: string;
  readonly family: string;
  readonly collection: string;
  readonly accountId: number;
  readonly expiresAt: number;
}

/** What presenting a refresh token came to. */
export type RefreshOutcome =
  /** It was live: it is used now, and the new token of its family is stored. */
  | { readonly state: 'rotated'; readonly accountId: number }
  /** It was used before, or its family revoked: the whole family is revoked now. */
  | { readonly state: 'reused' }
  /** Unknown, of another collection, or expired: nothing changed. */
  | { readonly state: 'invalid' };

/** The account tables' operations; each is one statement or one transaction. */
export interface AccountTables extends FlowTables {
  /** Every signing key, newest first (by `createdAt`, then `kid`). */
  listKeys(): Promise<SigningKeyRow[]>;
  /**
   * Adds a key, which every key without `supersededAt` counts as superseded by from its
   * `createdAt`. With `ifNone`, adds it only to a table without keys; resolves with whether it did.
   */
  addKey(key: Omit<SigningKeyRow, 'supersededAt'>, options?: { ifNone?: boolean }): Promise<boolean>;
  /** Deletes the keys superseded before `before`; resolves with how many. */
  pruneKeys(before: number): Promise<number>;
  /** Stores the first token of a new family. */
  addRefreshToken(token: NewRefreshToken): Promise<void>;
  /**
   * Presents the token whose hash is `hash` for `collection` at `now`: if live, marks it
   * used and stores `next` in its family, all at once; a token used before, or of a
   * revoked family, revokes the family. Two callers racing with one token: one rotates it.
   */
  rotateRefreshToken(
    collection: string,
    hash: string,
    next: { readonly hash: string; readonly expiresAt: number },
    now: number,
  ): Promise<RefreshOutcome>;
  /** Revokes the family of the token whose hash is `hash`; resolves with whether there was one. */
  revokeFamily(collection: string, hash: string): Promise<boolean>;
  /**
   * Deletes refresh tokens expired at `now`, and families left without any, and flows' expired
   * tokens; resolves with how many refresh tokens.
   */
  sweep(now: number): Promise<number>;
}

/** What a flow's single-use token is for. */
export type FlowPurpose = 'verify' | 'reset' | 'email' | 'provider-state' | 'provider-code';

/** A flow's single-use token, as stored: by its hash. */
export interface FlowToken {
  /** The token's SHA-256, base64url: the token itself is never stored. */
  readonly hash: string;
  readonly purpose: FlowPurpose;
  readonly collection: string;
  /** The account it acts on; null for a provider sign-in's state, which names none yet. */
  readonly accountId: number | null;
  /** What the flow carries along: an email change's new address, a sign-in's state. */
  readonly detail: string | null;
  readonly expiresAt: number;
}

/** A token a write spends: it goes ahead only if the token is live and names its record. */
export interface SpentToken {
  readonly purpose: FlowPurpose;
  readonly hash: string;
  readonly now: number;
}

/** An outside provider's subject linked to an account. */
export interface AccountLink {
  readonly collection: string;
  readonly provider: string;
  readonly subject: string;
  readonly accountId: number;
}

/** The tables of accounts' flows (verification, reset, email change, provider sign-in). */
export interface FlowTables {
  /**
   * Stores a token; one naming an account supersedes that account's other tokens of the
   * same purpose, in the same transaction (only the newest reset link works).
   */
  addFlowToken(token: FlowToken): Promise<void>;
  /** The live token of this hash, purpose and collection at `now`, left as it is. */
  findFlowToken(purpose: FlowPurpose, collection: string, hash: string, now: number): Promise<FlowToken | undefined>;
  /** Uses up the live token of this hash, purpose and collection at `now`: of two callers, one gets it. */
  spendFlowToken(purpose: FlowPurpose, collection: string, hash: string, now: number): Promise<FlowToken | undefined>;
  /** Whether the account's email address is proven. */
  isVerified(collection: string, accountId: number): Promise<boolean>;
  setVerified(collection: string, accountId: number, verified: boolean): Promise<void>;
  /** The account a provider's subject is linked to. */
  findLink(collection: string, provider: string, subject: string): Promise<number | undefined>;
  /** Links a provider's subject to an account; a subject linked before keeps its account. */
  addLink(link: AccountLink): Promise<void>;
}
