/**
 * Signing in to an account collection (one whose schema says `x-auth`), and out. Once an
 * account is signed in, every request of the client carries its access token, renewed
 * before it expires and once more when restock refuses it (./session.ts). And the flows an
 * app needs around it: verifying the email, resetting the password, changing the email,
 * signing in with an outside provider.
 */
import type { IssuedTokens, Session, SessionKeeper, SessionListener } from './session.js';
import type { Stored } from './stored.js';
import type { RequestOptions, Sent, Transport } from './transport.js';

/** An outside identity provider the collection's accounts may sign in with. */
export interface Provider {
  name: string;
}

/** The fields of `T` that hold text: those a sign-in may name (restock takes any unique one). */
type TextFields<T> = { [K in keyof T]-?: NonNullable<T[K]> extends string ? K : never }[keyof T] & string;

/**
 * What signs an account in: its password and one of its collection's unique fields, such
 * as `{ email, password }`. restock refuses (`400`) a sign-in that names none or several.
 */
export type SignInFields<T> = { password: string } & (string extends keyof T
  ? { [field: string]: string }
  : { [K in Exclude<TextFields<T>, 'password'>]?: string });

export class AccountClient<T extends object> {
  readonly #transport: Transport;
  readonly #keeper: SessionKeeper;
  /** The account collection, by its plural (`users`). */
  readonly collection: string;

  constructor(transport: Transport, keeper: SessionKeeper, collection: string) {
    this.#transport = transport;
    this.#keeper = keeper;
    this.collection = collection;
  }

  /** The signed-in account's session, when it is one of this collection's; keep it to {@link restore} later. */
  get session(): Session<T> | undefined {
    const session = this.#keeper.session;
    return session?.collection === this.collection ? (session as Session<T>) : undefined;
  }

  /** The signed-in account's record as of its last sign-in or refresh, or undefined. */
  get record(): Stored<T> | undefined {
    return this.session?.record;
  }

  /** The access token the client sends now, or undefined. */
  get token(): string | undefined {
    return this.session?.token;
  }

  get signedIn(): boolean {
    return this.session !== undefined;
  }

  /**
   * Signs in, and from then on the client's requests carry the account's token (in place of
   * any API key); answers the account's record. A wrong name or password is a
   * {@link ProblemError} `401 invalid-credentials`, too many of them `429 too-many-sign-ins`.
   * Signing in replaces any account signed in before (without signing it out at restock).
   */
  async signIn(fields: SignInFields<T>, options: RequestOptions = {}): Promise<Stored<T>> {
    // Not repeated on failure: each failed attempt counts against the account's limit.
    const response = await this.#transport.send('POST', this.#path(), { ...options, body: fields, anonymous: true });
    return this.#accept(response);
  }

  /**
   * Renews the access token now (the client does it by itself before it expires, and after
   * a 401). A failure signs the account out here, and rejects.
   */
  async refresh(): Promise<Stored<T>> {
    if (!this.signedIn) throw new Error(`not signed in to ${this.collection}`);
    return (await this.#keeper.refresh()).record as Stored<T>;
  }

  /** Takes up a session kept from {@link session} (in storage, say), sending nothing until a request needs it. */
  restore(session: Session<T>): void {
    if (session.collection !== this.collection) throw new TypeError(`a session of ${session.collection}`);
    this.#keeper.restore(session as Session<unknown>);
  }

  /** Signs in with only a kept refresh token: renews it, and answers the account's record. */
  async resume(refreshToken: string, options: RequestOptions = {}): Promise<Stored<T>> {
    const sent = { ...options, body: { refreshToken }, anonymous: true };
    return this.#accept(await this.#transport.send('POST', `${this.#path()}refresh/`, sent));
  }

  /**
   * Signs out: the client forgets the session at once, then restock revokes its refresh token
   * and every one rotated from it (the access token stays valid until it expires, minutes at
   * most). Sent as DELETE, or as POST with the override header when the client tunnels.
   */
  async signOut(options: RequestOptions = {}): Promise<void> {
    await this.#keeper.settled();
    const session = this.session;
    if (!session) return;
    this.#keeper.restore(undefined);
    const body = { refreshToken: session.refreshToken };
    // Revoking twice is harmless, so a lost answer may be sent again.
    await this.#transport.send('DELETE', this.#path(), { ...options, body, anonymous: true, repeatable: true });
  }

  /**
   * Calls `listener` on every sign-in, renewal and sign-out of this collection's accounts
   * (with undefined when no one of them is signed in any more); answers how to stop. To keep
   * a session across page loads, save what it is given and {@link restore} it.
   */
  onChange(listener: SessionListener<T>): () => void {
    let last = this.session;
    return this.#keeper.onChange(() => {
      const now = this.session;
      if (now === last) return;
      last = now;
      listener(now);
    });
  }

  /** The signed-in account's record as restock has it now; `401` when no one is signed in. */
  async me(options: RequestOptions = {}): Promise<Stored<T>> {
    return (await this.#send('GET', '', { ...options, repeatable: true })).json() as Promise<Stored<T>>;
  }

  /** A short-lived token for `fileUrl`'s `token`, where no header goes (`<img src>`). */
  async fileToken(options: RequestOptions = {}): Promise<string> {
    return ((await (await this.#send('POST', 'file-token/', options)).json()) as { token: string }).token;
  }

  /** Mails a new verification link to the signed-in account, or to the account with `email` (if any). */
  async requestVerification(email?: string, options: RequestOptions = {}): Promise<void> {
    await this.#send('POST', 'verify/resend/', email === undefined ? options : { ...options, body: { email } });
  }

  /** Marks the account verified with the token its mail carried (then renews the session, whose claims say so). */
  async confirmVerification(token: string, options: RequestOptions = {}): Promise<void> {
    await this.#send('POST', 'verify/', { ...options, body: { token }, anonymous: true });
    await this.#renew();
  }

  /** Mails a reset link when an account has `email` (restock answers alike either way). */
  async requestPasswordReset(email: string, options: RequestOptions = {}): Promise<void> {
    await this.#send('POST', 'reset/', { ...options, body: { email }, anonymous: true });
  }

  /**
   * Sets the password with the token a reset mail carried; every session of the account ends.
   * With `signIn`, signs it in anew and answers its record.
   */
  async confirmPasswordReset(
    token: string,
    password: string,
    { signIn = false, ...options }: RequestOptions & { signIn?: boolean } = {},
  ): Promise<Stored<T> | undefined> {
    const sent = { ...options, body: { token, password, signIn }, anonymous: true };
    const response = await this.#send('POST', 'reset/confirm/', sent);
    return response.status === 204 ? undefined : this.#accept(response);
  }

  /**
   * Asks to change the signed-in account's email (its `field`, default `email`): restock mails
   * the new address a link, and the record keeps the old one until {@link confirmEmailChange}.
   */
  async changeEmail(email: string, { field = 'email', ...options }: RequestOptions & { field?: string } = {}) {
    const id = this.record?.id;
    if (id === undefined) throw new Error(`not signed in to ${this.collection}`);
    const response = await this.#transport.send('PUT', `/${this.collection}/${id}/`, {
      ...options,
      body: { [field]: email },
    });
    return response.json() as Promise<Stored<T>>;
  }

  /** Applies an email change with the token mailed to the new address; answers the record. */
  async confirmEmailChange(token: string, options: RequestOptions = {}): Promise<Stored<T>> {
    const response = await this.#send('POST', 'email/confirm/', { ...options, body: { token }, anonymous: true });
    const record = (await response.json()) as Stored<T>;
    await this.#renew();
    return record;
  }

  /** The outside providers this collection's accounts may sign in with. */
  async providers(options: RequestOptions = {}): Promise<Provider[]> {
    const sent = { ...options, anonymous: true, repeatable: true };
    return (await this.#send('GET', 'providers/', sent)).json() as Promise<Provider[]>;
  }

  /**
   * Where to send the browser to sign in with `provider`: back at `redirect` (default this
   * page) with `?code=` for {@link completeProviderSignIn}, or `?error=`. In a browser it goes
   * there, unless `navigate` is false.
   */
  signInWithProvider(provider: string, options: { redirect?: string; navigate?: boolean } = {}): URL {
    // Typed here: the client builds for Node.js as well, without the DOM's types.
    const page = (globalThis as { location?: { href: string; assign(url: URL): void } }).location;
    const redirect = options.redirect ?? page?.href;
    if (redirect === undefined) throw new TypeError('a redirect URL is needed outside a browser');
    const url = this.#transport.url(`${this.#path()}providers/${encodeURIComponent(provider)}/`);
    url.searchParams.set('redirect', redirect);
    if (options.navigate ?? true) page?.assign(url);
    return url;
  }

  /** Signs in with the one-time `code` a provider sign-in came back with; answers the account's record. */
  async completeProviderSignIn(code: string, options: RequestOptions = {}): Promise<Stored<T>> {
    return this.#accept(
      await this.#send('POST', 'providers/exchange/', { ...options, body: { code }, anonymous: true }),
    );
  }

  #path(): string {
    return `/${this.collection}/auth/`;
  }

  #send(method: string, tail: string, sent: Sent): Promise<Response> {
    return this.#transport.send(method, `${this.#path()}${tail}`, sent);
  }

  /** Renews a signed-in session after restock changed the account; a failure has signed it out, and says so to onChange. */
  async #renew(): Promise<void> {
    if (this.signedIn) await this.#keeper.refresh().catch(() => {});
  }

  async #accept(response: Response): Promise<Stored<T>> {
    const issued = (await response.json()) as IssuedTokens<unknown>;
    return this.#keeper.accept(this.collection, issued).record as Stored<T>;
  }
}
