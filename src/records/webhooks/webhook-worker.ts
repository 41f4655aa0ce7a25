/**
 * The webhooks of one process: which it delivers, and the leases that make it the only
 * instance delivering them. Every `leaseMs / 4` it renews the leases it holds and tries to
 * take the ones nobody holds (or whose holder's lease ended: it died); a webhook whose
 * generation moved (changed, paused, replayed from outside) is read afresh. Whichever
 * instance takes a webhook first delivers it, until it stops or dies.
 */
import type { StoredWebhook, WebhookTables } from '../../store/webhook-model.js';
import type { RunDeps } from './run-deps.js';
import { WebhookRun } from './webhook-run.js';

/** How often kept deliveries are trimmed. */
const TRIM_MS = 3_600_000;
/** First-attempt successes kept per webhook for the list of recent deliveries. */
const RECENT_DELIVERIES = 100;

export interface WorkerOptions extends Omit<RunDeps, 'ended' | 'tables'> {
  readonly tables: WebhookTables;
  readonly leaseMs: number;
  /** How long dead letters are kept. */
  readonly deadLetterMs: number;
}

export class WebhookWorker {
  private readonly runs = new Map<number, WebhookRun>();
  private scanning: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private trimTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: WorkerOptions) {}

  start(): void {
    const { leaseMs } = this.options;
    this.timer = setInterval(() => this.look(), Math.max(100, leaseMs / 4)).unref();
    this.trimTimer = setInterval(() => void this.trim(), TRIM_MS).unref();
    this.look();
  }

  /** A webhook was made, changed or replayed here: look at once rather than at the next renewal. */
  notify(_id?: number): void {
    this.look();
  }

  /** How long each delivered webhook's oldest undelivered change has waited, in seconds. */
  lags(): Map<number, number> {
    const now = this.options.now();
    return new Map([...this.runs].map(([id, run]) => [id, run.lagSeconds(now)]));
  }

  /** Stops every run and gives their leases up, so that another instance takes them over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.trimTimer);
    while (this.scanning) await this.scanning;
    const runs = [...this.runs.values()];
    this.runs.clear();
    await Promise.all(runs.map((run) => run.stop()));
    await Promise.all(runs.map((run) => this.options.tables.release(run.id, this.options.owner).catch(() => {})));
  }

  private look(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.again = true;
      return;
    }
    this.scanning = this.scan()
      .catch((error: unknown) => this.options.log.warn({ err: error }, 'webhooks: looking for work failed'))
      .finally(() => {
        this.scanning = undefined;
        if (this.again) {
          this.again = false;
          this.look();
        }
      });
  }

  private async scan(): Promise<void> {
    const { tables } = this.options;
    const webhooks = await tables.list();
    const ids = new Set(webhooks.map((webhook) => webhook.id));
    for (const [id, run] of this.runs) if (!ids.has(id)) await this.end(id, run);
    for (const webhook of webhooks) {
      if (this.stopped) return;
      await this.follow(webhook);
    }
  }

  /** Renews, takes, refreshes or lets go of one webhook. */
  private async follow(webhook: StoredWebhook): Promise<void> {
    const { tables, owner, leaseMs, now } = this.options;
    const run = this.runs.get(webhook.id);
    if (webhook.pausedAt !== null) {
      if (run) await this.end(webhook.id, run);
      if (run) await tables.release(webhook.id, owner);
      return;
    }
    const at = now();
    const leased = await tables.lease(webhook.id, owner, at, leaseMs);
    if (!leased) {
      // Another instance holds it: its lease outlasted ours, or ours ended unrenewed.
      if (run) await this.end(webhook.id, run);
      return;
    }
    if (run?.active && run.generation === leased.generation) {
      run.renewed(leased, at + leaseMs);
      return;
    }
    if (run) await this.end(webhook.id, run);
    if (this.stopped) return;
    // A run that ends on its own is replaced at the next look, not at once: a log that fails keeps failing a while.
    const fresh = new WebhookRun({ ...this.options, ended: () => {} }, leased, at + leaseMs);
    this.runs.set(webhook.id, fresh);
    try {
      await fresh.start();
    } catch (error) {
      this.options.log.warn({ err: error, webhook: webhook.id }, 'webhook: starting its delivery failed');
      await this.end(webhook.id, fresh);
    }
  }

  private async end(id: number, run: WebhookRun): Promise<void> {
    if (this.runs.get(id) === run) this.runs.delete(id);
    await run.stop();
  }

  private async trim(): Promise<void> {
    const { tables, now, deadLetterMs, log } = this.options;
    try {
      await tables.trim(RECENT_DELIVERIES, now() - deadLetterMs);
    } catch (error) {
      log.warn({ err: error }, 'webhooks: trimming kept deliveries failed');
    }
  }
}
