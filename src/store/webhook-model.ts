/**
 * What the store keeps for webhooks (src/records/webhooks/ delivers them): each webhook's
 * definition and secrets, its place in each collection's change log, the lease that lets one
 * instance at a time deliver it, and the deliveries worth keeping: those being retried, those
 * waiting behind a retry of the same record, the dead letters, and the most recent successes.
 * Times are milliseconds since the epoch, by the clock of the instance that writes them.
 */

export type WebhookEvent = 'created' | 'updated' | 'deleted';

/** What a webhook asks for: where to, and which changes. */
export interface WebhookSpec {
  readonly url: string;
  /** Plurals of the collections it follows. */
  readonly collections: readonly string[];
  readonly events: readonly WebhookEvent[];
  /** A list filter expression (`status = 'placed'`), or null for every record. */
  readonly filter: string | null;
}

/** The secrets a webhook signs with: the current one, and the one it replaced while their overlap lasts. */
export interface WebhookSecrets {
  /** `whsec_…` (Standard Webhooks). */
  readonly current: string;
  readonly previous: string | null;
  /** Until when `previous` also signs; null without one. */
  readonly previousUntil: number | null;
}

export interface StoredWebhook extends WebhookSpec {
  readonly id: number;
  /** The name a WEBHOOKS file gives it; null for one made through the API. */
  readonly declaredAs: string | null;
  readonly secrets: WebhookSecrets;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When it was paused (by failing for the whole retry time, or by a write key); null while it runs. */
  readonly pausedAt: number | null;
  readonly pauseReason: string | null;
  /**
   * Moves on at every change made from outside its delivery (its definition, a pause, a
   * replay): an instance delivering it notices, and reads it afresh.
   */
  readonly generation: number;
}

/** A new webhook, or a WEBHOOKS file's entry. */
export interface NewWebhook extends WebhookSpec {
  readonly secret: string;
  /** The file's name for it; absent through the API. */
  readonly declaredAs?: string;
}

/**
 * A delivery's state: `retrying` failed and is due again at `nextAt`; `waiting` is a later
 * change of a record whose earlier one is retrying, sent once that one is settled; `dead`
 * gave up (or its webhook was paused); `delivered` answered 2xx.
 */
export type DeliveryState = 'retrying' | 'waiting' | 'dead' | 'delivered';

export interface Delivery {
  readonly webhookId: number;
  /** The `webhook-id` it is sent with: the same for every attempt, so receivers drop duplicates by it. */
  readonly messageId: string;
  readonly collection: string;
  /** The change's number in its collection's log. */
  readonly seq: number;
  readonly recordId: number;
  /** `<plural>.<created|updated|deleted>`. */
  readonly type: string;
  /** When the change was logged (committed). */
  readonly occurredAt: number;
  /** The JSON body sent (bounded by WEBHOOKS_MAX_BODY_BYTES). */
  readonly body: string;
  readonly state: DeliveryState;
  /** Attempts made so far. */
  readonly attempts: number;
  /** The last answer's status; null when there was none (refused, timed out). */
  readonly status: number | null;
  /** Why the last attempt failed, in a line; null after a success. */
  readonly error: string | null;
  /** When its first attempt was made: its retries end WEBHOOKS_RETRY_SECONDS after. */
  readonly firstAttemptAt: number;
  readonly lastAttemptAt: number;
  /** When a `retrying` delivery is due; null otherwise. */
  readonly nextAt: number | null;
}

/** Which kept deliveries to list. */
export interface DeliveryQuery {
  readonly state?: DeliveryState;
  /** Newest first; only those with `lastAttemptAt` before this (a page's end). */
  readonly before?: number;
  readonly limit: number;
}

export interface WebhookTables {
  list(): Promise<StoredWebhook[]>;
  get(id: number): Promise<StoredWebhook | undefined>;
  /** How many webhooks there are (WEBHOOKS_MAX caps them). */
  count(): Promise<number>;
  /**
   * Stores a webhook and, in the same transaction, its place in each of its collections'
   * logs: their last change now, so that it hears of what commits after.
   */
  create(webhook: NewWebhook, now: number): Promise<StoredWebhook>;
  /**
   * Replaces a webhook's spec (a collection it did not follow starts at its log's end);
   * moves its generation on; undefined when there is no such webhook.
   */
  update(id: number, spec: WebhookSpec, now: number): Promise<StoredWebhook | undefined>;
  /** Forgets a webhook with its places and deliveries; false when there was none. */
  remove(id: number): Promise<boolean>;
  /**
   * Makes the declared webhooks (those a WEBHOOKS file holds, by `declaredAs`) exactly
   * `declared`, in one transaction: new ones made, changed ones updated (secret included),
   * those the file no longer holds removed. Resolves with the names of those it removed.
   */
  declare(declared: readonly NewWebhook[], now: number): Promise<string[]>;
  /** A new current secret; the old one keeps signing until `previousUntil`. */
  rotateSecret(id: number, secret: string, previousUntil: number, now: number): Promise<StoredWebhook | undefined>;
  /**
   * Pauses (`reason` given) or resumes (null) a webhook; moves its generation on. Pausing
   * makes every `retrying` and `waiting` delivery of it `dead`; resuming changes none.
   */
  pause(id: number, reason: string | null, now: number): Promise<StoredWebhook | undefined>;

  /**
   * Takes (or renews) the lease of a webhook for `owner` until `now + leaseMs`: granted when
   * nobody holds it, `owner` already does, or the holder's lease has ended. One statement,
   * so two instances never both get it. Resolves with the webhook as leased, or undefined.
   */
  lease(id: number, owner: string, now: number, leaseMs: number): Promise<StoredWebhook | undefined>;
  /** Gives the lease up, if `owner` holds it. */
  release(id: number, owner: string): Promise<void>;

  /** The webhook's place in each of its collections' logs: the last change it is done with. */
  positions(id: number): Promise<Map<string, number>>;
  /**
   * Moves the webhook's places on (never back) and stores `deliveries` (inserted, or
   * replacing the one of the same message id), in one transaction, only while `owner`
   * holds the lease and the webhook is at `generation`; false (nothing written) otherwise.
   */
  settle(
    id: number,
    owner: string,
    generation: number,
    positions: ReadonlyMap<string, number>,
    deliveries: readonly Delivery[],
  ): Promise<boolean>;
  /** The deliveries of a webhook in `retrying` or `waiting`, by collection and change number. */
  open(id: number): Promise<Delivery[]>;
  /** Kept deliveries, newest first. */
  deliveries(id: number, query: DeliveryQuery): Promise<Delivery[]>;
  delivery(id: number, messageId: string): Promise<Delivery | undefined>;
  /**
   * Sends a kept delivery (dead, or any other) again: it becomes `retrying`, due at `now`,
   * with its attempts from zero. Moves the generation on and resumes a paused webhook.
   * False when there is no such delivery.
   */
  replay(id: number, messageId: string, now: number): Promise<boolean>;
  /**
   * Sends again everything committed since `since`: each place moves back (never on) to
   * before its first change logged at or after `since`. Of the dead letters that occurred
   * since, those after the new place are forgotten (the log sends them again) and the others
   * (their changes trimmed from the log) become `retrying`, due at `now`. Moves the
   * generation on and resumes a paused webhook. Resolves with each collection's new place.
   */
  replaySince(id: number, since: number, now: number): Promise<Map<string, number>>;
  /** Forgets `delivered` deliveries of each webhook beyond its newest `keep`, and dead ones older than `before`. */
  trim(keep: number, before: number): Promise<number>;
}
