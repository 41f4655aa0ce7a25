/**
 * One webhook delivered by the instance holding its lease (./webhook-worker.ts): a lane per
 * collection fed by the change hub, sends started in change order while the webhook's and
 * the process's caps allow, changes of one record one after another, failures left to
 * retries (./open-deliveries.ts), and what is settled written to the store now and then
 * with the lanes' places, in one transaction. While the endpoint fails, the run holds: it
 * starts one new change at a time, after a backoff that doubles with each failure, so a
 * dead endpoint costs a probe now and then and the log keeps the rest.
 */
import type { StoredWebhook } from '../../store/webhook-model.js';
import { attemptOutcome, deliveryOf, endpointDown, MISSED_CHANGES, retryOutcome } from './delivery-outcomes.js';
import { WebhookSlots } from './delivery-slots.js';
import { EndpointHealth } from './endpoint-health.js';
import { OpenDeliveries, type OpenDelivery, stored } from './open-deliveries.js';
import type { RunDeps } from './run-deps.js';
import { RunLedger } from './run-ledger.js';
import { webhookMessage } from './webhook-body.js';
import type { LaneEntry, WebhookLane } from './webhook-lane.js';
import { lanesOf } from './webhook-lanes.js';
import type { SendOutcome, SendTarget } from './webhook-sender.js';

export class WebhookRun {
  readonly generation: number;
  private readonly lanes: WebhookLane[] = [];
  private readonly unsubscribes: (() => Promise<void>)[] = [];
  private open = new OpenDeliveries();
  private readonly ledger: RunLedger;
  private readonly slots: WebhookSlots;
  private readonly busy = new Set<string>();
  private readonly health: EndpointHealth;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: RunDeps,
    private webhook: StoredWebhook,
    private leaseUntil: number,
  ) {
    this.generation = webhook.generation;
    this.health = new EndpointHealth(deps.settings.backoffMs, deps.now);
    this.slots = new WebhookSlots(deps.slots, deps.settings.perWebhook, () => this.pump());
    this.ledger = new RunLedger({
      tables: deps.tables,
      id: webhook.id,
      owner: deps.owner,
      generation: webhook.generation,
      flushMs: deps.settings.flushMs,
      places: () => this.places(),
      refused: () => this.end('it changed, or its lease ended'),
      failed: (error) => deps.log.warn({ err: error, webhook: webhook.id }, 'webhook: saving its deliveries failed'),
    });
  }

  get id(): number {
    return this.webhook.id;
  }

  /** Each lane's place, moved over what is settled. */
  private places(): Map<string, number> {
    for (const lane of this.lanes) lane.advance();
    return new Map(this.lanes.map((lane) => [lane.collection, lane.place]));
  }

  /** False once it has stopped, on its own or told to. */
  get active(): boolean {
    return !this.stopped;
  }

  /** Reads its places and open deliveries, then follows its collections. */
  async start(): Promise<void> {
    const { tables, hubs, catalog, settings } = this.deps;
    const [positions, open, [lastDelivered]] = await Promise.all([
      tables.positions(this.id),
      tables.open(this.id),
      tables.deliveries(this.id, { state: 'delivered', limit: 1 }),
    ]);
    // A collection the webhook no longer follows keeps its deliveries for reading, not for sending.
    this.open = new OpenDeliveries(open.filter((row) => this.webhook.collections.includes(row.collection)));
    if (lastDelivered) this.health.lastSuccessAt = lastDelivered.lastAttemptAt;
    const lastSuccessAt = this.health.lastSuccessAt;
    if (open.some((row) => row.attempts > 0 && row.lastAttemptAt > lastSuccessAt)) this.health.heard(false);
    if (this.stopped) return;
    let lanes: ReturnType<typeof lanesOf>;
    try {
      lanes = lanesOf(this.webhook, positions, catalog, settings, (plural) => ({
        taken: () => this.pump(),
        failed: (error) => this.end('the change log could not be read', error),
        missed: (from, to) => this.deps.log.warn({ webhook: this.id, collection: plural, from, to }, MISSED_CHANGES),
      }));
    } catch (error) {
      // A filter the collection's schema no longer reads (a field removed since): nothing can be decided.
      return this.pause(`its filter no longer reads: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (const { collection, lane } of lanes) {
      this.lanes.push(lane);
      this.unsubscribes.push(hubs.subscribe(collection, lane));
    }
    this.pump();
  }

  /** The lease was renewed until `until`. */
  renewed(webhook: StoredWebhook, until: number): void {
    this.webhook = webhook;
    this.leaseUntil = until;
    this.pump();
  }

  /** Stops starting sends, lets those under way end, and settles what they did while the lease lasts. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.ledger.close();
    for (const lane of this.lanes) lane.release();
    await Promise.all(this.unsubscribes.map((unsubscribe) => unsubscribe()));
    await this.slots.drain();
    if (this.deps.now() < this.leaseUntil) await this.ledger.flush();
  }

  /** How long the oldest change not yet delivered has waited (seconds). */
  lagSeconds(now: number): number {
    const times = [...this.lanes.map((lane) => lane.oldest()), this.open.oldest()];
    const oldest = Math.min(...times.filter((time): time is number => time !== undefined));
    return Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0;
  }

  /** Starts what may start now: due retries first, then new changes in order. */
  private pump(): void {
    if (this.stopped) return;
    const now = this.deps.now();
    // A send must end before the lease can: past this, another instance may take over.
    if (this.leaseUntil - now <= this.deps.settings.timeoutMs + 1000) return;
    if (this.startRetries(now)) this.startChanges(now);
    for (const lane of this.lanes) if (lane.advance()) this.ledger.soon();
    this.later();
  }

  /** Starts the due retries; false when the caps stopped it. */
  private startRetries(now: number): boolean {
    for (const row of this.open.due(now)) {
      if (!this.slots.run(() => this.retry(row))) return false;
    }
    return true;
  }

  private startChanges(now: number): void {
    for (const lane of this.lanes) {
      const waiting = new Set<string>();
      for (const entry of lane.entries) {
        if (entry.settled || entry.sending) continue;
        if (this.busy.has(entry.recordKey) || waiting.has(entry.recordKey)) {
          waiting.add(entry.recordKey);
        } else if (this.open.isBlocked(entry.recordKey)) {
          this.wait(entry, now);
        } else if (!this.health.mayStart(this.slots.inFlight) || !this.slots.run(() => this.first(entry))) {
          return;
        }
      }
    }
  }

  /** Wakes the run when the next retry is due, or the hold ends. */
  private later(): void {
    clearTimeout(this.timer);
    const next = Math.min(this.open.nextDue() ?? Infinity, this.health.heldUntil ?? Infinity);
    if (!Number.isFinite(next)) return;
    this.timer = setTimeout(() => this.pump(), Math.max(0, next - this.deps.now()) + 1).unref();
  }

  /** A change of a blocked record: it waits behind that record's open deliveries. */
  private wait(entry: LaneEntry, now: number): void {
    const message = webhookMessage(entry.collection, entry.change, this.deps.settings.maxBodyBytes);
    const row = { ...deliveryOf(this.id, entry, message, now), state: 'waiting' as const, attempts: 0 };
    this.open.append(row);
    this.ledger.save(row);
    entry.settled = true;
  }

  private async first(entry: LaneEntry): Promise<void> {
    entry.sending = true;
    this.busy.add(entry.recordKey);
    const message = webhookMessage(entry.collection, entry.change, this.deps.settings.maxBodyBytes);
    const startedAt = this.deps.now();
    const outcome = await this.deps.send(this.target(), message);
    this.busy.delete(entry.recordKey);
    entry.sending = false;
    const now = this.deps.now();
    const row = attemptOutcome(deliveryOf(this.id, entry, message, startedAt), outcome, now, this.health.wait(1));
    this.count(row.webhookId, outcome);
    if (row.state === 'retrying') this.open.append({ ...row });
    this.ledger.save(row, outcome.ok);
    entry.settled = true;
    this.health.heard(outcome.ok);
  }

  private async retry(row: OpenDelivery): Promise<void> {
    row.sending = true;
    const outcome = await this.deps.send(this.target(), row);
    row.sending = false;
    const now = this.deps.now();
    this.deps.metrics.retried(this.id);
    this.count(this.id, outcome);
    const { retryMs } = this.deps.settings;
    const after = retryOutcome(stored(row), outcome, now, retryMs, this.health.wait(row.attempts + 1));
    Object.assign(row, after);
    this.ledger.save(after);
    if (after.state === 'delivered' || after.state === 'dead') {
      const next = this.open.settle(row, now);
      if (next) this.ledger.save(stored(next));
    }
    this.health.heard(outcome.ok);
    if (after.state === 'dead') {
      this.deps.metrics.dead(this.id);
      // Nothing got through since this delivery first failed: the endpoint is down, not this change.
      if (this.health.lastSuccessAt < after.firstAttemptAt && !this.stopped)
        void this.pause(endpointDown(after, retryMs));
    }
  }

  private count(id: number, outcome: SendOutcome): void {
    this.deps.metrics[outcome.ok ? 'delivered' : 'failed'](id);
  }

  private target(): SendTarget {
    return { key: this.id, url: this.webhook.url, secrets: this.webhook.secrets };
  }

  /** Never rejects: a pause the store could not record ends the run, and the next one retries from the store. */
  private async pause(reason: string): Promise<void> {
    try {
      await this.ledger.flush();
      await this.deps.tables.pause(this.id, reason, this.deps.now());
      this.deps.log.warn({ webhook: this.id, reason }, 'webhook paused');
      this.end('it paused');
    } catch (error) {
      this.end('pausing it failed', error);
    }
  }

  private end(why: string, error?: unknown): void {
    if (this.stopped) return;
    this.deps.log.info(
      { webhook: this.id, ...(error !== undefined && { err: error }) },
      `webhook: delivery stops: ${why}`,
    );
    void this.stop().finally(() => this.deps.ended(this.id));
  }
}
