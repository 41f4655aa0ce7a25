/**
 * One collection of one webhook, as the change hub (../change-hub.ts) hands it over: the
 * changes taken past the webhook's stored place, in order, each waiting to be settled (sent,
 * found not to match, or left to a retry). The place moves over the settled ones at the
 * front only, so that a crash repeats what was under way and skips nothing. It holds at most
 * `window` changes, so a slow or failing endpoint costs the server a window of changes and no
 * more; the log keeps the rest.
 */
import type { Change } from '../../store/change-log-model.js';
import type { Subscriber } from '../change-hub.js';

export interface LaneEntry {
  readonly collection: string;
  readonly change: Change;
  /** Changes of one record share it, and go one after another. */
  readonly recordKey: string;
  sending: boolean;
  settled: boolean;
}

export interface LaneEvents {
  /** Changes were taken: the first ones already settled when `matches` said no. */
  taken(): void;
  /** The log could not be read; the lane takes nothing more. */
  failed(error: unknown): void;
  /** The log no longer holds changes `from`…`to`, which the webhook was never sent. */
  missed(from: number, to: number): void;
}

export const recordKeyOf = (collection: string, id: number) => `${collection}/${id}`;

export class WebhookLane implements Subscriber {
  /** The last change taken (the hub's contract). */
  position: number;
  /** The last change settled with every change before it. */
  place: number;
  readonly entries: LaneEntry[] = [];
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(
    readonly collection: string,
    start: number,
    private readonly window: number,
    private readonly matches: (change: Change) => boolean,
    private readonly events: LaneEvents,
  ) {
    this.position = start;
    this.place = start;
  }

  /**
   * Takes the changes, waiting for room whenever `window` wait: the hub goes on without this
   * lane meanwhile, and the lane reads what it missed from the log once this resolves.
   */
  async take(changes: readonly Change[]): Promise<void> {
    for (const change of changes) {
      if (change.seq <= this.position) continue;
      if (this.entries.length >= this.window) this.advance();
      if (this.entries.length >= this.window) {
        this.events.taken();
        await this.ready();
      }
      if (this.closed) return;
      if (change.seq > this.position + 1) this.events.missed(this.position + 1, change.seq - 1);
      const entry = {
        collection: this.collection,
        change,
        recordKey: recordKeyOf(this.collection, change.record.id),
        sending: false,
        settled: !this.matches(change),
      };
      this.entries.push(entry);
      this.position = change.seq;
    }
    this.advance();
    this.events.taken();
  }

  ready(): Promise<void> {
    if (this.entries.length < this.window || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  fail(error: unknown): void {
    this.events.failed(error);
  }

  /** Moves the place over the settled changes at the front; true when it moved. */
  advance(): boolean {
    const before = this.place;
    while (this.entries[0]?.settled) this.place = (this.entries.shift() as LaneEntry).change.seq;
    if (this.entries.length === 0) this.place = this.position;
    if (this.entries.length < this.window) for (const resolve of this.waiting.splice(0)) resolve();
    return this.place !== before;
  }

  /** Takes nothing more, and lets a hub waiting on `ready` go: the lane's webhook stopped. */
  release(): void {
    this.closed = true;
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** When the oldest change not yet settled was logged (ms), or undefined when none waits. */
  oldest(): number | undefined {
    const first = this.entries.find((entry) => !entry.settled);
    return first === undefined ? undefined : loggedAtOf(first.change);
  }
}

export function loggedAtOf(change: Change): number {
  return Date.parse(change.loggedAt ?? change.record.updatedAt);
}
