/**
 * One request to restock over `fetch`: the key, the override when the client tunnels, and
 * retries where a retry is safe. A failed response becomes a {@link ProblemError}.
 */
import { ProblemError, problemOf } from './problem-error.js';

export interface ClientOptions {
  /** Where restock listens, such as `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`. */
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
}

/** The header that carries the method a tunnelled request stands for. */
export const OVERRIDE_HEADER = 'HTTP-X-HTTP-METHOD';

export interface Sent {
  body?: unknown;
  headers?: Record<string, string>;
  /** Whether repeating the request is safe: a read, or a create with an Idempotency-Key. */
  repeatable?: boolean;
  /** Aborts the request, and the reading of its body. */
  signal?: AbortSignal;
}

/** Statuses after which a repeatable request is tried again. */
const TRANSIENT = new Set([429, 500, 502, 503, 504]);
const MAX_WAIT_MS = 5_000;

export class Transport {
  readonly #options: Required<Pick<ClientOptions, 'retries' | 'fetch'>> & ClientOptions;

  constructor(options: ClientOptions) {
    this.#options = { retries: 2, fetch: globalThis.fetch.bind(globalThis), ...options };
  }

  /** Sends `method` to `target` (a path, or an absolute URL restock gave) and answers an OK response. */
  async send(method: string, target: string, sent: Sent = {}): Promise<Response> {
    const { wire, headers } = this.#wire(method, sent);
    const url = new URL(target, this.#options.baseUrl);
    const init: RequestInit = { method: wire, headers, ...(sent.signal && { signal: sent.signal }) };
    if (sent.body !== undefined) init.body = JSON.stringify(sent.body);
    for (let attempt = 0; ; attempt++) {
      const last = !sent.repeatable || attempt >= this.#options.retries;
      let response: Response;
      try {
        response = await this.#options.fetch(url, init);
      } catch (error) {
        if (last) throw error;
        await wait(backoff(attempt));
        continue;
      }
      if (response.ok || response.status === 304) return response;
      const problem = await problemOf(response);
      const inUse = response.status === 409 && problem.type.endsWith('/idempotency-key-in-use');
      if (last || !(TRANSIENT.has(response.status) || inUse)) throw new ProblemError(problem);
      await wait(retryAfter(response) ?? backoff(attempt));
    }
  }

  /** The method on the wire and the headers, with the override when this client tunnels `method`. */
  #wire(method: string, sent: Sent): { wire: string; headers: Record<string, string> } {
    const headers: Record<string, string> = { accept: 'application/json', ...sent.headers };
    if (sent.body !== undefined) headers['content-type'] = 'application/json';
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    const { tunnel } = this.#options;
    if (!tunnel || method === 'GET' || method === 'POST') return { wire: method, headers };
    headers[OVERRIDE_HEADER] = method;
    return { wire: tunnel === 'get' && sent.body === undefined ? 'GET' : 'POST', headers };
  }
}

function backoff(attempt: number): number {
  return Math.min(100 * 2 ** attempt, MAX_WAIT_MS);
}

function retryAfter(response: Response): number | undefined {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_WAIT_MS) : undefined;
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
