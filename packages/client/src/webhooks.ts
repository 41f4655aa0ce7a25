// Webhooks, for a client holding a write key: restock POSTs the changes of collections to a url, signed.
import type { RequestOptions, Transport } from './transport.js';

export type WebhookEvent = 'created' | 'updated' | 'deleted';

/** What a webhook asks for: where to, which collections, which changes, and which records (a filter expression). */
export interface WebhookDefinition {
  url: string;
  collections: string[];
  /** Default: all three. */
  events?: WebhookEvent[];
  filter?: string | null;
}

export interface Webhook extends Required<WebhookDefinition> {
  readonly id: number;
  /** Made by the WEBHOOKS file (then `name` is its name there): it changes there only. */
  readonly declared: boolean;
  readonly name?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly paused: { at: string; reason: string | null } | null;
  readonly secretRotation?: { previousUntil: string };
}

export type DeliveryState = 'retrying' | 'waiting' | 'dead' | 'delivered';

export interface WebhookDelivery {
  readonly messageId: string;
  readonly collection: string;
  readonly seq: number;
  readonly recordId: number;
  readonly type: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly occurredAt: string;
  readonly firstAttemptAt: string;
  readonly lastAttemptAt: string;
  readonly nextAt: string | null;
  /** With `body: true`. */
  readonly body?: unknown;
}

export interface DeliveriesQuery {
  state?: DeliveryState;
  limit?: number;
  /** A time (ISO): deliveries last attempted before it. */
  before?: string;
  body?: boolean;
}

export type Replay = { delivery: string } | { since: string | Date };

export class WebhooksClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  list(options?: RequestOptions): Promise<Webhook[]> {
    return this.#json('GET', '/webhooks/', options);
  }

  /** Answers the webhook with its signing secret: the only time it is shown. */
  create(
    definition: WebhookDefinition & { secret?: string },
    options?: RequestOptions,
  ): Promise<Webhook & { secret: string }> {
    return this.#json('POST', '/webhooks/', options, definition);
  }

  get(id: number, options?: RequestOptions): Promise<Webhook> {
    return this.#json('GET', `/webhook/${id}/`, options);
  }

  /** Replaces its definition; `paused` pauses or resumes it. */
  update(id: number, definition: WebhookDefinition & { paused?: boolean }, options?: RequestOptions): Promise<Webhook> {
    return this.#json('PUT', `/webhook/${id}/`, options, definition, true);
  }

  async remove(id: number, options: RequestOptions = {}): Promise<void> {
    await this.#transport.send('DELETE', `/webhook/${id}/`, options);
  }

  /** A new secret, shown once; the old one signs beside it until `previousSecretUntil`. */
  rotateSecret(id: number, options?: RequestOptions): Promise<{ secret: string; previousSecretUntil: string }> {
    return this.#json('POST', `/webhook/${id}/secret/`, options);
  }

  /** Its kept deliveries, newest first (one page; the next: `before` the last one's `lastAttemptAt`). */
  deliveries(id: number, query: DeliveriesQuery = {}, options?: RequestOptions): Promise<WebhookDelivery[]> {
    const search = new URLSearchParams(
      Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
    );
    return this.#json('GET', `/webhook/${id}/deliveries/${search.size > 0 ? `?${search}` : ''}`, options);
  }

  /** Sends one kept delivery again, or every change since a time; resumes a paused webhook. */
  replay(id: number, what: Replay, options?: RequestOptions): Promise<{ replayed: 'delivery' | 'since' }> {
    const body = 'since' in what ? { since: new Date(what.since).toISOString() } : what;
    return this.#json('POST', `/webhook/${id}/replay/`, options, body);
  }

  async #json<T>(
    method: string,
    path: string,
    options: RequestOptions = {},
    body?: unknown,
    repeatable = method === 'GET',
  ): Promise<T> {
    const sent = { ...options, repeatable, ...(body !== undefined && { body }) };
    return (await (await this.#transport.send(method, path, sent)).json()) as T;
  }
}
