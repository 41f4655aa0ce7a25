/**
 * One request to restock over `fetch`: the credential (a signed-in account's token, else the
 * key), the override when the client tunnels, and retries where a retry is safe. A failed
 * response becomes a {@link ProblemError}.
 */
import { ProblemError, problemOf } from './problem-error.js';

export interface ClientOptions {
  /** Where restock listens, such as `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`, unless an account is signed in (its token is sent then). */
  apiKey?: string;
  /**
   * For HTTP stacks that send only some methods: `'post'` sends PUT, PATCH and DELETE as POST
   * carrying the override header; `'get'` sends DELETE as GET too (a GET has no body, so
   * changes still go as POST). Off by default.
   */
  tunnel?: 'post' | 'get';
  /** How often a request that is safe to repeat is retried after a failure (default 2). */
  retries?: number;
  /** The `fetch` to use (default the global one). */
  fetch?: typeof fetch;
  /** The clock an access token's expiry is timed by, in milliseconds since 1970 (default `Date.now`). */
  now?: () => number;
  /** How long a call may take, retries included, in milliseconds, unless the call says (default: no limit). */
  timeout?: number;
}

/** What every call takes besides its own arguments. */
export interface RequestOptions {
  /** Aborts the call (its retries and the reading of its answer too): it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Aborts the call after this many milliseconds, retries included, with a `TimeoutError`. */
  timeout?: number;
}

/** Where the access token of a signed-in account comes from (./session.ts). */
export interface Credentials {
  /** The token to send now (renewed first when due), or undefined when no one is signed in. */
  current(): Promise<string | undefined>;
  /** After restock refused `rejected` with a 401: whether a newer token is ready to retry with. */
  renewed(rejected: string): Promise<boolean>;
}

/** The header that carries the method a tunnelled request stands for. */
export const OVERRIDE_HEADER = 'HTTP-X-HTTP-METHOD';

export interface Sent extends RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Whether repeating the request is safe: a read, or a create with an Idempotency-Key. */
  repeatable?: boolean;
  /** Sent with no credential at all: signing in, renewing and signing out carry their own. */
  anonymous?: boolean;
  /** An answer that goes on as long as it is read (the change feed): the client's default timeout does not apply. */
  streams?: boolean;
}

/** Statuses after which a repeatable request is tried again. */
const TRANSIENT = new Set([429, 500, 502, 503, 504]);
const MAX_WAIT_MS = 5_000;

export class Transport {
  readonly #options: Required<Pick<ClientOptions, 'retries' | 'fetch'>> & ClientOptions;
  #credentials: Credentials | undefined;

  constructor(options: ClientOptions) {
    this.#options = { retries: 2, fetch: globalThis.fetch.bind(globalThis), ...options };
  }

  /** Sends the token `credentials` give on every request from now on, in place of the key. */
  useCredentials(credentials: Credentials): void {
    this.#credentials = credentials;
  }

  /** `target` (a path, or an absolute URL restock gave) as restock's URL. */
  url(target: string): URL {
    return new URL(target, this.#options.baseUrl);
  }

  /**
   * Sends `method` to `target` (a path, or an absolute URL restock gave) and answers an OK
   * response. A 401 to an account's token is answered by renewing the token and sending the
   * request once more: restock refuses a credential before the request does anything, so
   * even a change is safe to send again.
   */
  async send(method: string, target: string, options: Sent = {}): Promise<Response> {
    const signal = callSignal(options.signal, options.timeout ?? (options.streams ? undefined : this.#options.timeout));
    const sent = { ...options, ...(signal && { signal }) };
    signal?.throwIfAborted();
    const token = sent.anonymous ? undefined : await this.#credentials?.current();
    try {
      return await this.#attempt(method, target, sent, token);
    } catch (error) {
      const refused = error instanceof ProblemError && error.status === 401;
      if (!refused || token === undefined || !(await this.#credentials?.renewed(token))) throw error;
      return this.#attempt(method, target, sent, await this.#credentials?.current());
    }
  }

  async #attempt(method: string, target: string, sent: Sent, token: string | undefined): Promise<Response> {
    const { wire, headers } = this.#wire(method, sent, token);
    const url = this.url(target);
    const init: RequestInit = { method: wire, headers, ...(sent.signal && { signal: sent.signal }) };
    // A form goes as it is: fetch writes its multipart Content-Type, boundary included.
    if (sent.body !== undefined) init.body = isForm(sent.body) ? sent.body : JSON.stringify(sent.body);
    for (let attempt = 0; ; attempt++) {
      const last = !sent.repeatable || attempt >= this.#options.retries;
      let response: Response;
      try {
        response = await this.#options.fetch(url, init);
      } catch (error) {
        if (last || sent.signal?.aborted) throw error;
        await wait(backoff(attempt), sent.signal);
        continue;
      }
      if (response.ok || response.status === 304) return response;
      const problem = await problemOf(response);
      const inUse = response.status === 409 && problem.type.endsWith('/idempotency-key-in-use');
      if (last || !(TRANSIENT.has(response.status) || inUse)) throw new ProblemError(problem);
      await wait(retryAfter(response) ?? backoff(attempt), sent.signal);
    }
  }

  /** The method on the wire and the headers, with the override when this client tunnels `method`. */
  #wire(method: string, sent: Sent, token: string | undefined): { wire: string; headers: Record<string, string> } {
    const headers: Record<string, string> = { accept: 'application/json', ...sent.headers };
    if (sent.body !== undefined && !isForm(sent.body)) headers['content-type'] = 'application/json';
    const bearer = sent.anonymous ? undefined : (token ?? this.#options.apiKey);
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const { tunnel } = this.#options;
    if (!tunnel || method === 'GET' || method === 'POST') return { wire: method, headers };
    headers[OVERRIDE_HEADER] = method;
    return { wire: tunnel === 'get' && sent.body === undefined ? 'GET' : 'POST', headers };
  }
}

const isForm = (body: unknown): body is FormData => typeof FormData !== 'undefined' && body instanceof FormData;

function backoff(attempt: number): number {
  return Math.min(100 * 2 ** attempt, MAX_WAIT_MS);
}

function retryAfter(response: Response): number | undefined {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_WAIT_MS) : undefined;
}

/** Waits `ms` before a retry, or rejects as soon as the call is aborted. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      if (signal?.aborted) reject(signal.reason);
      else resolve();
    }
  });
}

/**
 * The signal a call runs under: the caller's, ended early by the timeout. Combined by hand
 * rather than with `AbortSignal.any`, which some browsers still in use lack.
 */
export function callSignal(signal: AbortSignal | undefined, timeout: number | undefined): AbortSignal | undefined {
  if (timeout === undefined) return signal;
  const timed = AbortSignal.timeout(timeout);
  if (!signal) return timed;
  const both = new AbortController();
  const follow = (source: AbortSignal) => () => both.abort(source.reason);
  if (signal.aborted) both.abort(signal.reason);
  signal.addEventListener('abort', follow(signal), { once: true, signal: both.signal });
  timed.addEventListener('abort', follow(timed), { once: true, signal: both.signal });
  return both.signal;
}
