/**
 * Sign-in with an outside provider for one account collection, without HTTP: begin (the
 * flow's secrets kept server-side, the provider's authorization URL), complete (the grant
 * checked by openid-client, the account found, created or linked, a one-time code for the
 * app) and exchange (the code, once, for the account it names).
 *
 * Between the redirect and the callback, `state`, `nonce` and the PKCE verifier are an
 * account token of purpose 'provider-state', keyed by the hash of `state` (10 minutes):
 * any instance on the database can finish a flow another began, and a callback is
 * accepted once. The app's code is a token of purpose 'provider-code' (60 seconds) naming
 * the account; the tokens themselves are only ever given to the app, through its redirect.
 */
import type { ProviderSetting } from '../../../config/index.js';
import type { Collection } from '../../../core/collection.js';
import type { Records, StoredRecord } from '../../../store/store.js';
import { Refusal } from '../../refusal.js';
import { issueFlowToken } from '../flows/flow-tokens.js';
import { isTokenShaped, refreshTokenHash as tokenHash } from '../refresh-tokens.js';
import { type FlowSecrets, ProviderProtocol } from './oidc-protocol.js';
import { type AccountOutcome, accountFor, type ProviderAccounts } from './provider-accounts.js';

/** How long a browser has between the redirect to the provider and its callback. */
export const STATE_MS = 10 * 60 * 1000;
/** How long the app has to exchange its one-time code. */
export const CODE_MS = 60 * 1000;
/** When to try a provider that could not be reached (its discovery is tried again then). */
const PROVIDER_RETRY_SECONDS = 30;

/** What a flow keeps server-side, as the 'provider-state' token's detail. */
interface FlowDetail extends Omit<FlowSecrets, 'state'> {
  readonly provider: string;
  readonly redirect: string;
  readonly callbackUrl: string;
}

export interface ProviderSignInOptions {
  readonly collection: Collection;
  readonly records: Records;
  readonly accounts: ProviderAccounts;
  readonly providers: readonly ProviderSetting[];
  /** Creates the account from its fields, held to the collection's schema and `create` rule. */
  readonly createAccount: (fields: Record<string, unknown>, verified: boolean) => Promise<StoredRecord>;
  /** The clock, in milliseconds since the epoch (tests move it). */
  readonly now?: () => number;
}

/** The one refusal of a callback or an exchange that names no live flow: unknown, used or expired. */
export function invalidProviderFlow(): Refusal {
  return new Refusal('invalid-provider-flow', 'The sign-in is unknown, finished already or expired: begin it again.');
}

export class ProviderSignIn {
  readonly #protocols: ReadonlyMap<string, ProviderProtocol>;
  readonly #now: () => number;

  constructor(readonly options: ProviderSignInOptions) {
    this.#protocols = new Map(options.providers.map((setting) => [setting.name, new ProviderProtocol(setting)]));
    this.#now = options.now ?? Date.now;
  }

  /** The providers' names, in the settings' order. */
  get names(): string[] {
    return [...this.#protocols.keys()];
  }

  /** Begins a sign-in with `provider`: the URL to send the browser to. `redirect` is the app's, checked already. */
  async begin(provider: string, { redirect, callbackUrl }: { redirect: URL; callbackUrl: string }): Promise<URL> {
    const protocol = this.#protocol(provider);
    const { state, ...secrets } = await ProviderProtocol.secrets();
    const detail: FlowDetail = { provider, redirect: redirect.href, callbackUrl, ...secrets };
    // The URL first: a provider that cannot be discovered leaves no token behind.
    const url = await protocol.authorizationUrl(callbackUrl, { state, ...secrets }).catch(() => {
      throw new Refusal('service-unavailable', `The provider "${provider}" could not be reached; try again.`, {
        retryAfter: PROVIDER_RETRY_SECONDS,
      });
    });
    await this.options.accounts.addFlowToken({
      hash: tokenHash(state),
      purpose: 'provider-state',
      collection: this.options.collection.plural,
      accountId: null,
      detail: JSON.stringify(detail),
      expiresAt: this.#now() + STATE_MS,
    });
    return url;
  }

  /**
   * Completes the sign-in `provider` sent back with `query`: where to send the browser, the
   * app's redirect with `code` or with `error`. The flow is used up first (a second
   * callback with the same `state` is refused), then the grant is checked.
   * Refuses with {@link invalidProviderFlow} when `state` names no live flow of this provider.
   */
  async complete(provider: string, query: URLSearchParams): Promise<URL> {
    const protocol = this.#protocol(provider);
    const state = query.get('state');
    if (state === null) throw invalidProviderFlow();
    const spent = await this.options.accounts.spendFlowToken(
      'provider-state',
      this.options.collection.plural,
      tokenHash(state),
      this.#now(),
    );
    const detail = spent?.detail ? (JSON.parse(spent.detail) as FlowDetail) : undefined;
    if (!detail || detail.provider !== provider) throw invalidProviderFlow();
    const redirect = new URL(detail.redirect);
    const outcome = await this.#account(protocol, query, { state, ...detail });
    if ('error' in outcome) return withParameter(redirect, 'error', outcome.error);
    const code = await issueFlowToken(this.options.accounts, {
      purpose: 'provider-code',
      collection: this.options.collection.plural,
      accountId: outcome.record.id,
      detail: null,
      expiresAt: this.#now() + CODE_MS,
    });
    return withParameter(redirect, 'code', code);
  }

  /** The account a one-time code names, once; refuses with {@link invalidProviderFlow}. */
  async exchange(code: unknown): Promise<StoredRecord> {
    if (!isTokenShaped(code)) throw invalidProviderFlow();
    const { collection, records, accounts } = this.options;
    const spent = await accounts.spendFlowToken('provider-code', collection.plural, tokenHash(code), this.#now());
    const record = typeof spent?.accountId === 'number' ? await records.get(spent.accountId) : undefined;
    if (!record) throw invalidProviderFlow();
    return record;
  }

  async #account(
    protocol: ProviderProtocol,
    query: URLSearchParams,
    flow: FlowDetail & { state: string },
  ): Promise<AccountOutcome> {
    if (query.has('error')) return { error: 'denied' };
    const currentUrl = new URL(flow.callbackUrl);
    currentUrl.search = query.toString();
    let claims: Awaited<ReturnType<ProviderProtocol['claims']>>;
    try {
      claims = await protocol.claims(currentUrl, flow);
    } catch {
      // What openid-client refused (a wrong nonce, a code used before, a provider down) is
      // no business of the browser's; the app hears one kind.
      return { error: 'provider-error' };
    }
    return accountFor(this.options, protocol.setting, claims);
  }

  #protocol(name: string): ProviderProtocol {
    const protocol = this.#protocols.get(name);
    if (!protocol) throw new Refusal('not-found', `No provider is named "${name}".`);
    return protocol;
  }
}

function withParameter(url: URL, name: string, value: string): URL {
  const next = new URL(url);
  next.searchParams.set(name, value);
  return next;
}
