/**
 * Bearer tokens already verified, kept until they expire: a signed-in client sends the
 * same token for up to 15 minutes, and a signature check per request would cost more than
 * the read it guards. Keyed by the whole token, so a changed byte is a new token, checked
 * in full. Written by hand: a map in insertion order is the whole of the cache.
 */
import { decodeJwt } from 'jose';
import type { RuleAuth } from '../../core/rules/rule-tree.js';

/** Tokens remembered at most; past it the oldest is forgotten (and checked again if it comes back). */
const MAX_TOKENS = 10_000;

/** A verified token: the caller it names, and when it expires (milliseconds since the epoch). */
export interface VerifiedToken {
  readonly auth: RuleAuth;
  readonly expiresAt?: number;
}

export class VerifiedTokens {
  readonly #verify: (token: string) => Promise<RuleAuth | undefined>;
  readonly #now: () => number;
  readonly #known = new Map<string, VerifiedToken & { readonly expiresAt: number }>();

  constructor(verify: (token: string) => Promise<RuleAuth | undefined>, now: () => number = Date.now) {
    this.#verify = verify;
    this.#now = now;
  }

  /** The token, if it was verified and has not expired since: no signature is checked, nothing is decoded. */
  known(token: string): VerifiedToken | undefined {
    const known = this.#known.get(token);
    if (known === undefined) return undefined;
    if (known.expiresAt > this.#now()) return known;
    this.#known.delete(token);
    return undefined;
  }

  /** The token verified in full (or known already); undefined when it is not one this server accepts. */
  async verify(token: string): Promise<VerifiedToken | undefined> {
    const known = this.known(token);
    if (known) return known;
    const auth = await this.#verify(token);
    if (!auth) return undefined;
    const exp = decodeJwt(token).exp;
    if (typeof exp !== 'number') return { auth };
    if (this.#known.size >= MAX_TOKENS) this.#known.delete(this.#known.keys().next().value as string);
    const verified = { auth, expiresAt: exp * 1000 };
    this.#known.set(token, verified);
    return verified;
  }
}
