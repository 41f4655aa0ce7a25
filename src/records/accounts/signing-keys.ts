/**
 * The keys that sign access tokens, kept in the store so that every instance on one
 * database verifies with all of them and signs with the newest: instances accept each
 * other's tokens with no setting, and `restock rotate-keys` reaches them all. Each instance
 * keeps them in memory and reads them again every minute (a rotation reaches it within
 * one), and when a token names a key it does not know, at most once in a few seconds, so
 * that a flood of made-up kids cannot hammer the database.
 */
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { AccountTables, SigningKeyRow } from '../../store/account-model.js';

/** The one algorithm own tokens are signed and verified with. */
export const SIGNING_ALG = 'ES256';

/** How often the keys are read again, for a rotation to reach every instance. */
export const KEY_RELOAD_MS = 60_000;

/** The least time between two reads for an unknown kid. */
export const UNKNOWN_KID_RELOAD_MS = 5_000;

export interface KeyRingOptions {
  /** The clock, in milliseconds since the epoch. */
  readonly now: () => number;
  /**
   * How long a superseded key still verifies after a newer one was added: long enough for
   * the tokens it signed before every instance moved to the newer key (one reload) to
   * expire. Past it, the key verifies nothing, so a leaked key is dead one token life after
   * `rotate-keys`, even if it stays in the table until the next rotation.
   */
  readonly retiredAfterMs: number;
  readonly reloadMs?: number;
  readonly unknownKidReloadMs?: number;
}

/** A new ES256 key pair as the store keeps it, named by its JWK thumbprint (RFC 7638). */
export async function newSigningKey(createdAt: number): Promise<Omit<SigningKeyRow, 'supersededAt'>> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const named = { kid, alg: SIGNING_ALG, use: 'sig' };
  return {
    kid,
    privateJwk: JSON.stringify({ ...(await exportJWK(privateKey)), ...named }),
    publicJwk: JSON.stringify({ ...publicJwk, ...named }),
    createdAt,
  };
}

export interface Signer {
  readonly kid: string;
  readonly key: CryptoKey;
}

export class KeyRing {
  readonly #accounts: AccountTables;
  readonly #now: () => number;
  readonly #reloadMs: number;
  readonly #unknownKidReloadMs: number;
  readonly #retiredAfterMs: number;
  #verifying = new Map<string, CryptoKey>();
  /** When each superseded key was superseded. */
  #superseded = new Map<string, number>();
  #signer: Signer | undefined;
  #loadedAt = Number.NEGATIVE_INFINITY;
  #unknownAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | undefined;

  private constructor(accounts: AccountTables, options: KeyRingOptions) {
    this.#accounts = accounts;
    this.#now = options.now;
    this.#reloadMs = options.reloadMs ?? KEY_RELOAD_MS;
    this.#unknownKidReloadMs = options.unknownKidReloadMs ?? UNKNOWN_KID_RELOAD_MS;
    this.#retiredAfterMs = this.#reloadMs + options.retiredAfterMs;
  }

  /**
   * The keys in the store, after adding one if there is none. Two instances starting at
   * once on an empty table may each add one: both are then verified, the newer signs.
   */
  static async open(accounts: AccountTables, options: KeyRingOptions): Promise<KeyRing> {
    const ring = new KeyRing(accounts, options);
    await ring.reload();
    if (!ring.#signer) {
      await accounts.addKey(await newSigningKey(options.now()), { ifNone: true });
      await ring.reload();
    }
    return ring;
  }

  /** The newest key, to sign with. */
  async signer(): Promise<Signer> {
    await this.#fresh();
    if (!this.#signer) throw new Error('restock: no signing key in the store');
    return this.#signer;
  }

  /** The key `kid` names, read again from the store if it is unknown and may be new. */
  async verifier(kid: string): Promise<CryptoKey | undefined> {
    await this.#fresh();
    const now = this.#now();
    if (!this.#verifying.has(kid) && now - this.#unknownAt >= this.#unknownKidReloadMs) {
      this.#unknownAt = now;
      await this.reload();
    }
    const superseded = this.#superseded.get(kid);
    if (superseded !== undefined && now - superseded > this.#retiredAfterMs) return undefined;
    return this.#verifying.get(kid);
  }

  /** Reads the keys again; callers that ask meanwhile share one read. */
  reload(): Promise<void> {
    this.#loading ??= this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #fresh(): Promise<void> {
    if (this.#now() - this.#loadedAt >= this.#reloadMs) await this.reload();
  }

  async #load(): Promise<void> {
    const rows = await this.#accounts.listKeys();
    const verifying = new Map<string, CryptoKey>();
    this.#superseded = new Map(
      rows.flatMap((row) => (row.supersededAt === null ? [] : [[row.kid, row.supersededAt] as const])),
    );
    for (const row of rows) {
      // A key's JWK never changes under its kid, so a key once imported is kept.
      const key = this.#verifying.get(row.kid) ?? (await importKey(row.publicJwk));
      if (key) verifying.set(row.kid, key);
    }
    const newest = rows.find((row) => verifying.has(row.kid));
    if (newest && newest.kid !== this.#signer?.kid) {
      const key = await importKey(newest.privateJwk);
      if (key) this.#signer = { kid: newest.kid, key };
    }
    this.#verifying = verifying;
    this.#loadedAt = this.#now();
  }
}

/** A key of the store's, if it is one of {@link SIGNING_ALG}: the algorithm comes from the key. */
async function importKey(text: string): Promise<CryptoKey | undefined> {
  const jwk = JSON.parse(text) as JWK;
  if (jwk.alg !== SIGNING_ALG) return undefined;
  return (await importJWK(jwk, SIGNING_ALG)) as CryptoKey;
}

/** What a rotation did. */
export interface Rotation {
  readonly kid: string;
  /** Keys in the store after it, the new one included. */
  readonly kept: number;
  readonly removed: number;
}

/**
 * Adds a new signing key, which every instance signs with once it reads the keys again
 * (within {@link KEY_RELOAD_MS}), and removes the keys superseded long enough ago that no
 * token they signed can still be valid: `accessTokenSeconds` (the longest access-token
 * life any instance uses) after the last instance stopped signing with them, plus the
 * clock tolerance verification allows.
 */
export async function rotateSigningKeys(
  accounts: AccountTables,
  options: { accessTokenSeconds: number; clockToleranceSeconds: number; now?: () => number },
): Promise<Rotation> {
  const now = (options.now ?? Date.now)();
  const key = await newSigningKey(now);
  await accounts.addKey(key);
  const graceMs = KEY_RELOAD_MS + (options.accessTokenSeconds + options.clockToleranceSeconds) * 1000;
  const removed = await accounts.pruneKeys(now - graceMs);
  return { kid: key.kid, kept: (await accounts.listKeys()).length, removed };
}
