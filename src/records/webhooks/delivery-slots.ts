/**
 * The deliveries one process has under way, across its webhooks (WEBHOOKS_IN_FLIGHT): a
 * webhook takes a slot for each send and gives it back when the send ends; one that finds
 * none free is called back when one is.
 */
export class DeliverySlots {
  private used = 0;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly max: number) {}

  /** Takes a slot if one is free; otherwise `onFree` is called once one is. */
  take(onFree: () => void): boolean {
    if (this.used < this.max) {
      this.used += 1;
      return true;
    }
    this.waiting.add(onFree);
    return false;
  }

  give(): void {
    this.used -= 1;
    const [next] = this.waiting;
    if (next) {
      this.waiting.delete(next);
      next();
    }
  }

  /** Forgets a caller that no longer wants a slot (a stopped webhook). */
  forget(onFree: () => void): void {
    this.waiting.delete(onFree);
  }
}

/**
 * One webhook's share of the process's slots: at most `perWebhook` sends at once, each
 * holding one of the process's slots while it runs. `freed` is called when a send ends, or
 * when a slot the webhook waited for comes free.
 */
export class WebhookSlots {
  private used = 0;
  private readonly sends = new Set<Promise<void>>();

  constructor(
    private readonly slots: DeliverySlots,
    private readonly perWebhook: number,
    private readonly freed: () => void,
  ) {}

  get inFlight(): number {
    return this.used;
  }

  /** Runs `send` if a slot is free; false (and `freed` called later) if none is. */
  run(send: () => Promise<void>): boolean {
    if (this.used >= this.perWebhook || !this.slots.take(this.freed)) return false;
    this.used += 1;
    const running = send().finally(() => {
      this.sends.delete(running);
      this.used -= 1;
      this.slots.give();
      this.freed();
    });
    this.sends.add(running);
    return true;
  }

  /** Waits for no slot; resolves once the sends under way have ended. */
  async drain(): Promise<void> {
    this.slots.forget(this.freed);
    await Promise.all(this.sends);
  }
}
