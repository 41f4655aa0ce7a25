/**
 * Where a provider sign-in may send the browser back: only to an origin the operator
 * trusts (the app's, APP_URL, or this server's own), never to any URL a link names, which
 * would make restock an open redirect handing out sign-in codes to whoever wrote the link.
 */
import { invalidQuery, type Refusal } from '../../refusal.js';

/** `redirect` as a URL, if its origin is one of `origins`; else a refusal (400). */
export function appRedirect(redirect: unknown, origins: readonly string[]): URL {
  const url = typeof redirect === 'string' && URL.canParse(redirect) ? new URL(redirect) : undefined;
  if (!url || !/^https?:$/.test(url.protocol) || url.username !== '' || url.password !== '') {
    throw refused();
  }
  if (!origins.includes(url.origin)) throw refused();
  url.hash = '';
  return url;
}

function refused(): Refusal {
  return invalidQuery(
    'redirect',
    'must be an absolute http(s) URL of the app (the origin of APP_URL) or of this server',
  );
}
