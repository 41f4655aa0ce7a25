/**
 * The document's `servers`: where a client reached this service. Tools that read the
 * document away from the server (generators, validating proxies, a file on disk) cannot
 * resolve a relative URL, so each request gets its own origin, as it reached the server
 * (X-Forwarded-Proto and X-Forwarded-Host count only from the proxies TRUST_PROXY names),
 * unless PUBLIC_URL says where clients reach the service.
 *
 * The document is generated and rendered once per app; only its servers entry differs
 * between requests, so the rendered text is cut around that entry once and each request
 * pays for a concatenation, whatever Host it sends.
 */
import type { FastifyRequest } from 'fastify';

export interface Server {
  url: string;
  description: string;
}

/** The servers entry of the generated document: PUBLIC_URL, or a relative one each request replaces. */
export function documentServers(publicUrl: string): Server[] {
  return publicUrl === ''
    ? [{ url: '/', description: 'this server' }]
    : [{ url: publicUrl, description: 'this service' }];
}

/** The origin `request` reached this server at; undefined when its Host makes no URL. */
export function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = `${request.protocol}://${request.host}`;
  if (!URL.canParse(origin)) return undefined;
  const url = new URL(origin);
  // A Host with a path, user name or query in it names no origin of this server.
  const plain = url.href === `${url.origin}/` && url.hostname !== '' && /^https?:$/.test(url.protocol);
  return plain ? url.origin : undefined;
}

/** The servers entry a request is served: PUBLIC_URL's, else the request's origin. */
export function serversFor(request: FastifyRequest, publicUrl: string): Server[] {
  const origin = publicUrl === '' ? requestOrigin(request) : undefined;
  return origin
    ? [{ url: origin, description: 'this server, as this request reached it' }]
    : documentServers(publicUrl);
}

/**
 * A rendered document, cut around its servers entry (`entry` finds it in the text), to
 * serve with another one: `render(servers)` puts `servers` there, written by `write`.
 */
export function withServersFrom(
  text: string,
  entry: RegExp,
  write: (servers: Server[]) => string,
): (servers: Server[]) => string {
  const found = entry.exec(text);
  if (!found) throw new Error('the rendered document has no servers entry to replace');
  const before = text.slice(0, found.index);
  const after = text.slice(found.index + found[0].length);
  return (servers) => `${before}${write(servers)}${after}`;
}

/** Where the servers entry sits in the JSON text of the document, and how to write one. */
export const JSON_SERVERS = {
  // The first "servers" key: JSON escapes every quote inside a string, and the top-level
  // key comes before the paths, the only place an operation could have its own.
  entry: /"servers":\[[^\]]*\]/,
  write: (servers: Server[]) => `"servers":${JSON.stringify(servers)}`,
};

/** The same in the YAML text: the top-level key and its indented lines; JSON is YAML too. */
export const YAML_SERVERS = {
  entry: /^servers:\n(?:[ -].*\n)*/m,
  write: (servers: Server[]) => `servers: ${JSON.stringify(servers)}\n`,
};
