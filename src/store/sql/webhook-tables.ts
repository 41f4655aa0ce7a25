/**
 * The tables of webhooks (../webhook-model.ts), and how their rows read back: each
 * webhook's definition, secrets, pause and lease; its place in each collection's change
 * log; its kept deliveries. Times are milliseconds since the epoch on the caller's clock,
 * in the id type (64 bits on every engine). A webhook's places and deliveries are removed
 * with it by the statements that remove it: restock's tables hold no foreign keys.
 */
import type { Delivery, DeliveryState, StoredWebhook, WebhookEvent } from '../webhook-model.js';
import { type Program, sql } from './program.js';

/**
 * The DDL of the "webhooks" shared migration (./shared-migrations.ts); `serialKey` is the
 * engine's column type of a key it numbers itself, never handing a number out twice.
 */
export function* createWebhookTables(idType: string, serialKey: string): Program<void> {
  yield sql(`CREATE TABLE webhooks (
    id              ${serialKey},
    declared_as     TEXT UNIQUE,
    url             TEXT NOT NULL,
    collections     TEXT NOT NULL,
    events          TEXT NOT NULL,
    filter          TEXT,
    secret          TEXT NOT NULL,
    previous_secret TEXT,
    previous_until  ${idType},
    created_at      ${idType} NOT NULL,
    updated_at      ${idType} NOT NULL,
    paused_at       ${idType},
    pause_reason    TEXT,
    generation      ${idType} NOT NULL,
    lease_owner     TEXT,
    lease_until     ${idType}
  )`);
  // The last change of each followed collection the webhook is done with.
  yield sql(`CREATE TABLE webhook_positions (
    webhook_id ${idType} NOT NULL,
    collection TEXT NOT NULL,
    seq        ${idType} NOT NULL,
    PRIMARY KEY (webhook_id, collection)
  )`);
  yield sql(`CREATE TABLE webhook_deliveries (
    webhook_id       ${idType} NOT NULL,
    message_id       TEXT NOT NULL,
    collection       TEXT NOT NULL,
    seq              ${idType} NOT NULL,
    record_id        ${idType} NOT NULL,
    type             TEXT NOT NULL,
    body             TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('retrying', 'waiting', 'dead', 'delivered')),
    attempts         INTEGER NOT NULL,
    status           INTEGER,
    error            TEXT,
    occurred_at      ${idType} NOT NULL,
    first_attempt_at ${idType} NOT NULL,
    last_attempt_at  ${idType} NOT NULL,
    next_at          ${idType},
    PRIMARY KEY (webhook_id, message_id)
  )`);
  // The listing (newest first) and the trim of old successes and dead letters.
  yield sql('CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (webhook_id, last_attempt_at)');
  // The open deliveries a holder loads when it takes a webhook over.
  yield sql('CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries (webhook_id, state)');
}

export const WEBHOOK_COLUMNS =
  'id, declared_as AS "declaredAs", url, collections, events, filter, secret, previous_secret AS "previousSecret", ' +
  'previous_until AS "previousUntil", created_at AS "createdAt", updated_at AS "updatedAt", paused_at AS "pausedAt", ' +
  'pause_reason AS "pauseReason", generation';

/** The columns of a delivery, in the order {@link deliveryValues} gives them. */
export const DELIVERY_FIELDS = [
  ['webhook_id', 'webhookId'],
  ['message_id', 'messageId'],
  ['collection', 'collection'],
  ['seq', 'seq'],
  ['record_id', 'recordId'],
  ['type', 'type'],
  ['body', 'body'],
  ['state', 'state'],
  ['attempts', 'attempts'],
  ['status', 'status'],
  ['error', 'error'],
  ['occurred_at', 'occurredAt'],
  ['first_attempt_at', 'firstAttemptAt'],
  ['last_attempt_at', 'lastAttemptAt'],
  ['next_at', 'nextAt'],
] as const satisfies readonly (readonly [string, keyof Delivery])[];

export const DELIVERY_COLUMNS = DELIVERY_FIELDS.map(([column, field]) => `${column} AS "${field}"`).join(', ');

/** A number the driver may give as text (PostgreSQL's BIGINT), or null. */
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const textOrNull = (value: unknown) => (value === null || value === undefined ? null : String(value));

export function webhookOf(row: Record<string, unknown>): StoredWebhook {
  return {
    id: Number(row.id),
    declaredAs: textOrNull(row.declaredAs),
    url: String(row.url),
    collections: JSON.parse(String(row.collections)) as string[],
    events: JSON.parse(String(row.events)) as WebhookEvent[],
    filter: textOrNull(row.filter),
    secrets: {
      current: String(row.secret),
      previous: textOrNull(row.previousSecret),
      previousUntil: numberOrNull(row.previousUntil),
    },
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
    pausedAt: numberOrNull(row.pausedAt),
    pauseReason: textOrNull(row.pauseReason),
    generation: Number(row.generation),
  };
}

export function deliveryOf(row: Record<string, unknown>): Delivery {
  return {
    webhookId: Number(row.webhookId),
    messageId: String(row.messageId),
    collection: String(row.collection),
    seq: Number(row.seq),
    recordId: Number(row.recordId),
    type: String(row.type),
    occurredAt: Number(row.occurredAt),
    body: String(row.body),
    state: String(row.state) as DeliveryState,
    attempts: Number(row.attempts),
    status: numberOrNull(row.status),
    error: textOrNull(row.error),
    firstAttemptAt: Number(row.firstAttemptAt),
    lastAttemptAt: Number(row.lastAttemptAt),
    nextAt: numberOrNull(row.nextAt),
  };
}

/** A delivery's values in the order of {@link DELIVERY_FIELDS}. */
export function deliveryValues(delivery: Delivery): unknown[] {
  return DELIVERY_FIELDS.map(([, field]) => delivery[field]);
}
