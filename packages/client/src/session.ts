/**
 * The signed-in account a client speaks for, and the keeping of its tokens fresh. A client
 * has one (a request carries one credential), and every request asks it for the token to
 * send: so requests that find the token about to expire, or see it refused, all wait on the
 * same refresh. That matters beyond saving a request: a refresh token used twice revokes
 * every token rotated from it, so two refreshes at once would sign the account out.
 */
import type { Stored } from './stored.js';

/** A signed-in account: what a sign-in gave, kept as the client renews it. Save it to {@link AccountClient.restore} later. */
export interface Session<T = Record<string, unknown>> {
  /** The account collection the account is a record of (`users`). */
  readonly collection: string;
  /** The access token (a JWT), sent as `Authorization: Bearer …`. */
  readonly token: string;
  /** What renews the access token; each renewal answers a new one in its place. */
  readonly refreshToken: string;
  /** When the access token expires, in milliseconds since 1970 by the client's clock. */
  readonly expiresAt: number;
  /** The account's record as of the last sign-in or refresh (never its password). */
  readonly record: Stored<T>;
}

/** What restock answers a sign-in or a refresh with. */
export interface IssuedTokens<T = Record<string, unknown>> {
  token: string;
  refreshToken: string;
  /** Seconds the access token is valid for. */
  expiresIn: number;
  record: Stored<T>;
}

/** Told of every change of session: a sign-in, a refresh, a sign-out (`undefined`). */
export type SessionListener<T = Record<string, unknown>> = (session: Session<T> | undefined) => void;

/** Sends a refresh (`POST /<collection>/auth/refresh/`) for `session`. */
export type SendRefresh = (session: Session<unknown>) => Promise<IssuedTokens<unknown>>;

/**
 * How long before it expires a token is renewed: 30 seconds, or a quarter of a shorter
 * life. Early enough that a request sent at the margin still arrives in time, with clocks
 * a little apart; late enough that a token is used for most of its life.
 */
function renewalDue({ expiresAt }: Session<unknown>, lifeMs: number): number {
  return expiresAt - Math.min(30_000, lifeMs / 4);
}

export class SessionKeeper {
  #session: Session<unknown> | undefined;
  /** The access token's whole life, for when to renew it. */
  #lifeMs = 0;
  #refreshing: Promise<Session<unknown>> | undefined;
  readonly #listeners = new Set<SessionListener<unknown>>();
  readonly #now: () => number;
  readonly #sendRefresh: SendRefresh;

  constructor(now: () => number, sendRefresh: SendRefresh) {
    this.#now = now;
    this.#sendRefresh = sendRefresh;
  }

  get session(): Session<unknown> | undefined {
    return this.#session;
  }

  /** Keeps what a sign-in or refresh of `collection` answered as the session. */
  accept(collection: string, issued: IssuedTokens<unknown>): Session<unknown> {
    const { token, refreshToken, expiresIn, record } = issued;
    const session = { collection, token, refreshToken, expiresAt: this.#now() + expiresIn * 1000, record };
    this.#replace(session, expiresIn * 1000);
    return session;
  }

  /** Takes up a saved session (undefined: signs out here, without telling restock). */
  restore(session: Session<unknown> | undefined): void {
    // A saved session says when its token expires, not how long it lived: what is left stands in.
    this.#replace(session, session ? Math.max(0, session.expiresAt - this.#now()) : 0);
  }

  #replace(session: Session<unknown> | undefined, lifeMs: number): void {
    this.#session = session;
    this.#lifeMs = lifeMs;
    for (const listener of this.#listeners) {
      try {
        listener(session);
      } catch (error) {
        // One listener's failure must not stop the others, nor the request that changed the session.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  onChange(listener: SessionListener<unknown>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The token to send now, renewed first when it is about to expire; undefined when no one
   * is signed in. Rejects when that renewal fails (and the session is then gone).
   */
  async current(): Promise<string | undefined> {
    const session = this.#session;
    if (!session) return undefined;
    if (!this.#refreshing && this.#now() < renewalDue(session, this.#lifeMs)) return session.token;
    return (await this.refresh()).token;
  }

  /**
   * After restock refused `rejected` (401): whether a newer token is now ready to retry with,
   * renewing it unless another request already did.
   */
  async renewed(rejected: string): Promise<boolean> {
    const session = this.#session;
    if (!session) return false;
    if (session.token !== rejected && !this.#refreshing) return true;
    try {
      await this.refresh();
      return true;
    } catch {
      return false;
    }
  }

  /** Renews the access token, or joins the renewal under way. A failure signs out here. */
  refresh(): Promise<Session<unknown>> {
    const session = this.#session;
    if (!session) return Promise.reject(new Error('not signed in'));
    this.#refreshing ??= this.#renew(session).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Once no renewal is under way (whether it worked or not). */
  async settled(): Promise<void> {
    await this.#refreshing?.catch(() => {});
  }

  async #renew(session: Session<unknown>): Promise<Session<unknown>> {
    let issued: IssuedTokens<unknown>;
    try {
      issued = await this.#sendRefresh(session);
    } catch (error) {
      // Even a lost answer ends the session: restock may have rotated the token already, and
      // sending the old one again would revoke them all.
      if (this.#session === session) this.restore(undefined);
      throw error;
    }
    // A sign-in while this was under way wins over it.
    return this.#session === session ? this.accept(session.collection, issued) : (this.#session ?? session);
  }
}
