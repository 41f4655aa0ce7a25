/**
 * What an attempt makes of a delivery: its new state, attempts, answer and next time. Pure,
 * so that the run (./webhook-run.ts) only decides when to send.
 */
import type { Delivery } from '../../store/webhook-model.js';
import { type LaneEntry, loggedAtOf } from './webhook-lane.js';
import type { SendOutcome } from './webhook-sender.js';

/** What the webhooks' metrics count, each per webhook. */
export interface WebhookMetrics {
  delivered(id: number): void;
  failed(id: number): void;
  retried(id: number): void;
  dead(id: number): void;
}

/** The delivery after its first attempt: delivered, or retrying after `waitMs`. */
export function attemptOutcome(row: Delivery, outcome: SendOutcome, now: number, waitMs: number): Delivery {
  return answered(row, outcome, now, outcome.ok ? null : now + waitMs);
}

/** The delivery after a retry: delivered, retrying after `waitMs`, or dead once `retryMs` have passed since its first attempt. */
export function retryOutcome(
  row: Delivery,
  outcome: SendOutcome,
  now: number,
  retryMs: number,
  waitMs: number,
): Delivery {
  if (outcome.ok) return answered(row, outcome, now, null);
  const over = now - row.firstAttemptAt >= retryMs;
  return { ...answered(row, outcome, now, over ? null : now + waitMs), ...(over && { state: 'dead' as const }) };
}

function answered(row: Delivery, outcome: SendOutcome, now: number, nextAt: number | null): Delivery {
  return {
    ...row,
    state: outcome.ok ? 'delivered' : 'retrying',
    attempts: row.attempts + 1,
    status: outcome.status,
    error: outcome.ok ? null : outcome.error,
    lastAttemptAt: now,
    nextAt,
  };
}

/** A delivery of a lane's change, before its first attempt (made at `at`). */
export function deliveryOf(
  webhookId: number,
  entry: LaneEntry,
  message: { messageId: string; type: string; body: string },
  at: number,
): Delivery {
  const { change } = entry;
  return {
    webhookId,
    messageId: message.messageId,
    collection: entry.collection,
    seq: change.seq,
    recordId: change.record.id,
    type: message.type,
    body: message.body,
    state: 'retrying',
    attempts: 0,
    status: null,
    error: null,
    occurredAt: loggedAtOf(change),
    firstAttemptAt: at,
    lastAttemptAt: at,
    nextAt: null,
  };
}

/** Why a webhook was paused, when a delivery died with nothing getting through since its first attempt. */
export function endpointDown(dead: Delivery, retryMs: number): string {
  return `every delivery failed for ${Math.round(retryMs / 1000)} s (the last: ${dead.error ?? dead.status})`;
}

/** What the log says when a held-back webhook finds its next changes trimmed. */
export const MISSED_CHANGES =
  'webhook: the change log no longer holds these changes, which it was never sent (it was held back past EVENTS_RETENTION_HOURS)';
