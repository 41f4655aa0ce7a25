/**
 * What the API promises of methods, which both the server that keeps the promise (the
 * method override and access control, src/http/plugins/) and the document that states it
 * (./openapi/) read.
 */

/** The request headers that carry a method override, as written in docs and `Vary`/CORS headers. */
export const OVERRIDE_HEADER_NAMES = ['HTTP-X-HTTP-METHOD', 'X-HTTP-Method', 'X-HTTP-Method-Override'] as const;

/** The methods a `read` key may use; every other method needs a `write` key. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
