/**
 * What the answers say of a webhook's endpoint: when one last got through, and, while it
 * fails, how long new changes are held back. Each failure in a row doubles the hold, so an
 * endpoint that is down gets a probe now and then, not every change.
 */
export class EndpointHealth {
  /** When a delivery last got through (ms). */
  lastSuccessAt = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private holdUntil = 0;

  constructor(
    private readonly firstWaitMs: number,
    private readonly now: () => number,
  ) {}

  get failing(): boolean {
    return this.failures > 0;
  }

  /** When the hold ends (ms), or undefined while the endpoint is well. */
  get heldUntil(): number | undefined {
    return this.failing ? this.holdUntil : undefined;
  }

  heard(ok: boolean): void {
    if (ok) {
      this.lastSuccessAt = this.now();
      this.failures = 0;
      return;
    }
    this.failures += 1;
    this.holdUntil = this.now() + this.wait(this.failures);
  }

  /** Whether a new change may be sent: any while well; while failing, one at a time once the hold is over. */
  mayStart(inFlight: number): boolean {
    return !this.failing || (inFlight === 0 && this.now() >= this.holdUntil);
  }

  /** The wait before retry `attempt` of one delivery. */
  wait(attempt: number): number {
    return backoffMs(attempt, this.firstWaitMs);
  }
}

/** The wait before retry `attempt` (1, 2, …): doubling from `firstMs` up to an hour, jittered to between half and all of it. */
export function backoffMs(attempt: number, firstMs: number, random = Math.random): number {
  const ceiling = Math.min(firstMs * 2 ** Math.max(0, attempt - 1), 3_600_000);
  return ceiling / 2 + (random() * ceiling) / 2;
}
