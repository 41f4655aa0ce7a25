/**
 * The deliveries of a webhook that failed and are not given up, as its holder keeps them
 * between the store's reads: the `retrying` ones, each due at a time, and behind each the
 * `waiting` later changes of the same record, sent in order once it is settled. A record with
 * any of them is blocked: its next change joins the wait rather than overtaking.
 */
import type { Delivery } from '../../store/webhook-model.js';
import { recordKeyOf } from './webhook-lane.js';

/** An open delivery as the holder changes it; the store's copy follows at the next settle. */
export type OpenDelivery = { -readonly [K in keyof Delivery]: Delivery[K] } & { sending?: boolean };

export const keyOf = (delivery: Pick<Delivery, 'collection' | 'recordId'>) =>
  recordKeyOf(delivery.collection, delivery.recordId);

export class OpenDeliveries {
  /** Each blocked record's open deliveries, the one retrying first, then the waiting in change order. */
  private readonly byRecord = new Map<string, OpenDelivery[]>();

  constructor(rows: readonly Delivery[] = []) {
    const sorted = [...rows].sort((a, b) => a.seq - b.seq);
    for (const row of sorted) this.append({ ...row });
  }

  isBlocked(recordKey: string): boolean {
    return this.byRecord.has(recordKey);
  }

  get size(): number {
    let size = 0;
    for (const queue of this.byRecord.values()) size += queue.length;
    return size;
  }

  /** Adds a delivery behind those of its record. */
  append(delivery: OpenDelivery): void {
    const key = keyOf(delivery);
    const queue = this.byRecord.get(key);
    if (queue) queue.push(delivery);
    else this.byRecord.set(key, [delivery]);
  }

  /** The retrying deliveries due by `now`, not being sent, soonest first. */
  due(now: number): OpenDelivery[] {
    const due: OpenDelivery[] = [];
    for (const [head] of this.byRecord.values()) {
      if (head?.state === 'retrying' && !head.sending && (head.nextAt ?? 0) <= now) due.push(head);
    }
    return due.sort((a, b) => (a.nextAt ?? 0) - (b.nextAt ?? 0));
  }

  /** When the next retry is due (ms), or undefined when none is. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const [head] of this.byRecord.values()) {
      if (head?.state !== 'retrying' || head.sending) continue;
      if (next === undefined || (head.nextAt ?? 0) < next) next = head.nextAt ?? 0;
    }
    return next;
  }

  /**
   * Takes a settled head (delivered or dead) off its record's queue; the next waiting one
   * becomes `retrying`, due at `now`, and is returned.
   */
  settle(head: OpenDelivery, now: number): OpenDelivery | undefined {
    const key = keyOf(head);
    const queue = this.byRecord.get(key);
    if (!queue || queue[0] !== head) return undefined;
    queue.shift();
    const next = queue[0];
    if (!next) {
      this.byRecord.delete(key);
      return undefined;
    }
    next.state = 'retrying';
    next.nextAt = now;
    next.firstAttemptAt = now;
    return next;
  }

  /** When the oldest open change was logged (ms), or undefined when none is open. */
  oldest(): number | undefined {
    let oldest: number | undefined;
    for (const queue of this.byRecord.values()) {
      for (const delivery of queue) {
        if (oldest === undefined || delivery.occurredAt < oldest) oldest = delivery.occurredAt;
      }
    }
    return oldest;
  }
}

/** The delivery as the store keeps it, without what only the run marks. */
export function stored(row: OpenDelivery): Delivery {
  const { sending: _sending, ...delivery } = row;
  return delivery;
}
