/**
 * A real OpenID provider for the tests: the certified `oidc-provider`, over real HTTP on
 * 127.0.0.1, with its development sign-in pages, and a small browser that goes through
 * them as a person would (a cookie jar, redirects followed by hand, the forms posted). The
 * people it knows are a map the test changes: their claims are read at each sign-in.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** What the provider says of one person: `sub` is the key of {@link IdentityProvider.people}. */
export interface Person {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface ProviderClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
}

export interface IdentityProvider {
  readonly issuer: string;
  readonly people: Map<string, Person>;
  /** Starts serving, knowing these clients (their redirect URIs are known only once restock listens). */
  serve(clients: readonly ProviderClient[]): void;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, port 0; the provider itself is made by {@link IdentityProvider.serve}. */
export async function startIdentityProvider(): Promise<IdentityProvider> {
  let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server: Server = createServer((request, response) => {
    if (handler) handler(request, response);
    else response.writeHead(503).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = new Map<string, Person>();
  return {
    issuer,
    people,
    serve(clients) {
      const provider = new Provider(issuer, {
        clients: clients.map((client) => ({
          client_id: client.clientId,
          client_secret: client.clientSecret,
          redirect_uris: [client.redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        })),
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        cookies: { keys: ['identity provider of the tests'] },
        pkce: { required: () => true },
        ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
        async findAccount(_ctx: unknown, sub: string) {
          return { accountId: sub, claims: async () => ({ sub, ...people.get(sub) }) };
        },
      });
      handler = provider.callback();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * Goes from `url` (the provider's authorization URL, as restock's redirect gave it) through
 * the provider's sign-in as `sub`, and its consent, to where the provider sends the browser
 * back: restock's callback URL with `code` and `state`, returned without being followed.
 * With `sub` null, the person cancels at the sign-in page instead.
 */
export async function signInAtProvider(url: string, sub: string | null, issuer: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let next = new URL(url);
  let form: Record<string, string> | undefined;
  for (let step = 0; step < 20; step += 1) {
    const response = await fetch(next, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form && { body: new URLSearchParams(form).toString() }),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    form = undefined;
    const location = response.headers.get('location');
    if (location) {
      await response.body?.cancel();
      next = new URL(location, next);
      if (next.origin !== issuer) return next;
      continue;
    }
    const page = await response.text();
    if (response.status !== 200) throw new Error(`the provider answered ${response.status}: ${page.slice(0, 500)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    if (prompt === 'login' && sub === null) next = new URL(`${next.pathname}/abort`, next);
    else if (prompt === 'login') form = { prompt, login: sub as string, password: 'any' };
    else if (prompt === 'consent') form = { prompt };
    else throw new Error(`an unexpected page from the provider: ${page.slice(0, 500)}`);
  }
  throw new Error('the provider never sent the browser back');
}
