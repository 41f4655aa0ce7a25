/**
 * What the webhooks' routes answer with: a webhook as a client sees it (never a secret:
 * those are shown once, by the answers that make them), and a kept delivery.
 */
import type { Delivery, StoredWebhook } from '../../../store/webhook-model.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** Where a webhook is read, changed and removed. */
export const webhookPath = (id: number) => `/webhook/${id}/`;

/** `webhook` as the API shows it, at `now` (a rotation's overlap that has ended is not shown). */
export function webhookJson(webhook: StoredWebhook, now: number) {
  const { previousUntil } = webhook.secrets;
  return {
    id: webhook.id,
    url: webhook.url,
    collections: webhook.collections,
    events: webhook.events,
    filter: webhook.filter,
    declared: webhook.declaredAs !== null,
    ...(webhook.declaredAs !== null && { name: webhook.declaredAs }),
    createdAt: iso(webhook.createdAt),
    updatedAt: iso(webhook.updatedAt),
    paused: webhook.pausedAt === null ? null : { at: iso(webhook.pausedAt), reason: webhook.pauseReason },
    ...(previousUntil !== null && previousUntil > now && { secretRotation: { previousUntil: iso(previousUntil) } }),
  };
}

/** A kept delivery; its body (the JSON sent) only when asked for. */
export function deliveryJson(delivery: Delivery, withBody: boolean) {
  return {
    messageId: delivery.messageId,
    collection: delivery.collection,
    seq: delivery.seq,
    recordId: delivery.recordId,
    type: delivery.type,
    state: delivery.state,
    attempts: delivery.attempts,
    status: delivery.status,
    error: delivery.error,
    occurredAt: iso(delivery.occurredAt),
    firstAttemptAt: iso(delivery.firstAttemptAt),
    lastAttemptAt: iso(delivery.lastAttemptAt),
    nextAt: isoOrNull(delivery.nextAt),
    ...(withBody && { body: bodyOf(delivery.body) }),
  };
}

/** The body as JSON; a body the store holds is always JSON, but a client should never get a 500 for it. */
function bodyOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
