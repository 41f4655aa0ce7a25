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
