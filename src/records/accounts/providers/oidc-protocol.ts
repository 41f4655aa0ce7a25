/**
 * The protocol with one outside provider, all of it done by openid-client (none by hand):
 * discovery of its metadata, the authorization URL (code flow, PKCE S256, `state`, `nonce`),
 * and the grant at the callback, which checks the response's `state` and `iss`, sends the
 * PKCE verifier, and checks the ID token (signature from the provider's keys, issuer,
 * audience, expiry, `nonce`). Discovery happens on first use and is kept, so that a start
 * does not depend on the provider answering; a failed discovery is tried again next time.
 * openid-client itself is imported at the first use too, so that a start without
 * AUTH_PROVIDERS never loads it.
 */
import type * as oidc from 'openid-client';
import { isLoopbackHttp, type ProviderSetting } from '../../../config/index.js';

/** The claims a sign-in proved: the ID token's, completed by the provider's userinfo. */
export type ProviderClaims = Readonly<Record<string, unknown>> & { readonly sub: string };

/** What a flow keeps between the redirect and the callback: secrets the browser never sees but `state`. */
export interface FlowSecrets {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

/** openid-client, imported once at the first use. */
const openid = () => import('openid-client');

export class ProviderProtocol {
  #configuration: Promise<oidc.Configuration> | undefined;

  constructor(readonly setting: ProviderSetting) {}

  /** The provider's configuration, discovered once (again after a failure). */
  configuration(): Promise<oidc.Configuration> {
    if (!this.#configuration) {
      this.#configuration = this.#discover();
      this.#configuration.catch(() => {
        this.#configuration = undefined;
      });
    }
    return this.#configuration;
  }

  async #discover(): Promise<oidc.Configuration> {
    const oidc = await openid();
    const { issuer, clientId, clientSecret } = this.setting;
    // openid-client refuses plain HTTP; the settings allow it only for an issuer on the
    // loopback (a provider run beside restock in development and in the tests).
    const execute = isLoopbackHttp(issuer) ? [oidc.allowInsecureRequests] : [];
    // client_secret_basic: the method OpenID Connect makes the default, which every provider takes.
    const auth = oidc.ClientSecretBasic(clientSecret);
    return oidc.discovery(new URL(issuer), clientId, undefined, auth, { execute });
  }

  /** Fresh secrets for one flow. */
  static async secrets(): Promise<FlowSecrets> {
    const oidc = await openid();
    return { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
  }

  /** Where to send the browser: the provider's authorization endpoint, with this flow's parameters. */
  async authorizationUrl(callbackUrl: string, secrets: FlowSecrets): Promise<URL> {
    const configuration = await this.configuration();
    const oidc = await openid();
    return oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: callbackUrl,
      response_type: 'code',
      scope: this.setting.scopes.join(' '),
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(secrets.verifier),
      code_challenge_method: 'S256',
    });
  }

  /**
   * Completes the grant for the callback `currentUrl` (the callback URL the flow began with,
   * and the query the provider sent), checked against the flow's secrets; the claims it proved.
   * Throws whatever openid-client refuses.
   */
  async claims(currentUrl: URL, secrets: FlowSecrets): Promise<ProviderClaims> {
    const configuration = await this.configuration();
    const oidc = await openid();
    const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      expectedState: secrets.state,
      expectedNonce: secrets.nonce,
      pkceCodeVerifier: secrets.verifier,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error('the provider sent no ID token');
    // A provider may keep the profile's claims out of the ID token (as OpenID Connect lets it
    // when an access token can fetch them): its userinfo, for the same subject, completes them.
    const metadata = configuration.serverMetadata();
    const userinfo = metadata.userinfo_endpoint
      ? await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)
      : {};
    return { ...userinfo, ...idClaims };
  }
}
