/**
 * What a webhook's run has settled and the store has not heard yet: the deliveries it changed
 * and the lanes' places, written together in one transaction (`settle`) at most `flushMs`
 * after the first of them. Of the deliveries that went through at the first attempt only the
 * newest few are written, for the list of recent deliveries: the places say the rest.
 */
import type { Delivery, WebhookTables } from '../../store/webhook-model.js';

/** First-attempt successes written per settle. */
const RECENT_PER_SETTLE = 20;

export interface LedgerDeps {
  readonly tables: Pick<WebhookTables, 'settle'>;
  readonly id: number;
  readonly owner: string;
  readonly generation: number;
  readonly flushMs: number;
  /** The places to write, read at each settle. */
  readonly places: () => ReadonlyMap<string, number>;
  /** The store refused: the webhook changed, or the lease ended. */
  readonly refused: () => void;
  readonly failed: (error: unknown) => void;
}

export class RunLedger {
  private readonly unsaved = new Map<string, Delivery>();
  private readonly recent = new Map<string, Delivery>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly deps: LedgerDeps) {}

  /** A delivery to write; `firstSuccess` when it went through at its first attempt (no row of it exists). */
  save(row: Delivery, firstSuccess = false): void {
    if (!firstSuccess) {
      this.unsaved.set(row.messageId, row);
    } else {
      this.recent.set(row.messageId, row);
      if (this.recent.size > RECENT_PER_SETTLE) this.recent.delete(this.recent.keys().next().value as string);
    }
    this.soon();
  }

  /** A settle within `flushMs` (the places moved). */
  soon(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.deps.flushMs).unref();
  }

  /** Writes what waits now, after any write under way. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.write().finally(() => {
      this.running = undefined;
    });
    await this.running;
  }

  /** No more timed settles; a last `flush` may still be called. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async write(): Promise<void> {
    const rows = [...this.recent.values(), ...this.unsaved.values()];
    this.recent.clear();
    this.unsaved.clear();
    const { tables, id, owner, generation } = this.deps;
    try {
      if (!(await tables.settle(id, owner, generation, this.deps.places(), rows))) this.deps.refused();
    } catch (error) {
      // Kept for the next settle, unless changed since.
      for (const row of rows) if (!this.unsaved.has(row.messageId)) this.unsaved.set(row.messageId, row);
      this.deps.failed(error);
      this.soon();
    }
  }
}
