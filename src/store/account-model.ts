/**
 * What the store keeps for accounts' tokens (src/records/accounts/ reads and writes it): the
 * keys that sign access tokens, and refresh tokens by their hash. Times are milliseconds
 * since the epoch on the token service's clock, passed in, never the database's: one clock
 * decides what has expired, and the tests can move it.
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
export interface AccountTables {
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
  /** Deletes refresh tokens expired at `now`, and families left without any; resolves with how many tokens. */
  sweep(now: number): Promise<number>;
}
