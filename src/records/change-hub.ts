/**
 * One reader of the change log per collection per process, however many clients follow
 * it: woken by the store (PostgreSQL's NOTIFY; on SQLite each commit of the process, and a
 * short poll for other processes'), it reads what committed since it last looked, once,
 * and hands the batch to every subscriber. A subscriber behind the hub (resuming, or one
 * whose batch skipped ahead) reads the gap itself, in order, before the batch, waiting for
 * its client between reads.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Catalog } from '../core/catalog.js';
import type { Collection } from '../core/collection.js';
import type { Change, ChangeLog } from '../store/store.js';

export interface Subscriber {
  /** The last change this subscriber has seen (or skipped). */
  position: number;
  /** Takes changes after `position`, in order; resolves once they are written (or dropped). */
  take(changes: readonly Change[]): Promise<void>;
  /** Resolves once the subscriber can take more (what it was sent has been read). */
  ready(): Promise<void>;
  /** Called on a failure of the log; the subscriber should end. */
  fail(error: unknown): void;
}

/** Changes a subscriber behind the hub reads from the log at a time, waiting for its client between reads. */
const CATCH_UP_READ = 100;

/** About how many bytes of events the hub hands out before other work gets a turn. */
const BYTES_PER_TURN = 4 * 1024 * 1024;

const batchBytes = (changes: readonly Change[]) =>
  changes.reduce((bytes, change) => bytes + change.record.data.length + (change.previous?.length ?? 0), 1);

class CollectionHub {
  readonly subscribers = new Set<Follower>();
  /**
   * The last change handed out: at first, where the first subscriber starts (so that what
   * commits before the first pump is handed out too); after a failure, unknown until read.
   */
  private last: number | undefined;
  private pumping = false;
  private again = false;

  constructor(
    private readonly log: ChangeLog,
    private readonly collection: string,
    start: number,
  ) {
    this.last = start;
  }

  /** Reads what committed since the last pump and hands it out; a wake while pumping pumps again after. */
  async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        this.last ??= (await this.log.bounds(this.collection)).last;
        for (;;) {
          const changes = await this.log.readNew(this.collection, this.last);
          if (changes.length === 0) break;
          this.last = (changes.at(-1) as Change).seq;
          // Each offer writes the batch to a socket at once, a copy into the kernel: a
          // thousand subscribers of a large batch would hold the loop for seconds, so other
          // requests get their turn after every few megabytes.
          const perTurn = Math.max(1, Math.floor(BYTES_PER_TURN / batchBytes(changes)));
          let offered = 0;
          for (const subscriber of this.subscribers) {
            subscriber.offer(changes);
            if (++offered % perTurn === 0) await nextTurn();
          }
        }
      } while (this.again);
    } catch (error) {
      this.last = undefined;
      for (const subscriber of this.subscribers) subscriber.subscriber.fail(error);
    } finally {
      this.pumping = false;
    }
  }
}

/**
 * A subscriber as the hub sees it. It holds no queue: a batch that comes while it is still
 * writing the one before (or reading the log) is dropped and noted, and once done it reads
 * the log from its position on instead, so a slow client costs the server no memory.
 */
class Follower {
  private running = false;
  private missed = false;
  private stopped = false;
  /** The work under way (or the last done): what stopping waits for. */
  private work: Promise<void>;

  constructor(
    readonly subscriber: Subscriber,
    private readonly log: ChangeLog,
    private readonly collection: string,
  ) {
    this.work = this.run(() => this.catchUp(Number.POSITIVE_INFINITY));
  }

  /** Takes no more and reads no more; resolves once the work under way has ended. */
  stop(): Promise<void> {
    this.stopped = true;
    return this.work;
  }

  offer(changes: readonly Change[]): void {
    if (this.stopped) return;
    if (this.running) {
      this.missed = true;
      return;
    }
    this.work = this.run(async () => {
      const first = (changes[0] as Change).seq;
      if (first > this.subscriber.position + 1) await this.catchUp(first - 1);
      const fresh = changes.filter((change) => change.seq > this.subscriber.position);
      if (fresh.length > 0) await this.subscriber.take(fresh);
    });
  }

  private async run(work: () => Promise<void>): Promise<void> {
    this.running = true;
    try {
      await work();
      while (this.missed && !this.stopped) {
        this.missed = false;
        await this.catchUp(Number.POSITIVE_INFINITY);
      }
    } catch (error) {
      this.subscriber.fail(error);
    }
    // No await since the last look at `missed`: a batch offered from now on is taken.
    this.running = false;
  }

  /** Reads and hands over the log from the subscriber's position up to `until` (or its end). */
  private async catchUp(until: number): Promise<void> {
    while (!this.stopped && this.subscriber.position < until) {
      await this.subscriber.ready();
      // SQLite reads synchronously, and a client that keeps up never makes `ready` wait:
      // a long catch-up gives other requests their turn between reads.
      await nextTurn();
      if (this.stopped) return;
      const from = this.subscriber.position;
      const changes = await this.log.read(this.collection, from, CATCH_UP_READ);
      const wanted = changes.filter((change) => change.seq <= until);
      if (wanted.length === 0) return;
      await this.subscriber.take(wanted);
      // A subscriber that took none of them has ended: reading on would read them forever.
      if (this.subscriber.position === from) return;
    }
  }
}

/** The hubs of every collection, and the one watch on the store that wakes them. */
export class ChangeHubs {
  private readonly hubs = new Map<Collection, CollectionHub>();
  /** Followers unsubscribed whose last read or write has not ended yet. */
  private readonly stopping = new Set<Promise<void>>();
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly log: ChangeLog,
    private readonly catalog: Catalog,
  ) {}

  /**
   * Follows `collection` for `subscriber` from its position on; returns how to stop, which
   * resolves once the subscriber is sent and read for no more.
   */
  subscribe(collection: Collection, subscriber: Subscriber): () => Promise<void> {
    let hub = this.hubs.get(collection);
    if (!hub) {
      hub = new CollectionHub(this.log, collection.plural, subscriber.position);
      this.hubs.set(collection, hub);
    }
    const follower = new Follower(subscriber, this.log, collection.plural);
    hub.subscribers.add(follower);
    this.unwatch ??= this.log.watch((changed) => this.wake(changed));
    return () => {
      hub.subscribers.delete(follower);
      if (hub.subscribers.size === 0) this.hubs.delete(collection);
      if (this.hubs.size === 0) this.stopWatching();
      const stopped = follower.stop().finally(() => this.stopping.delete(stopped));
      this.stopping.add(stopped);
      return stopped;
    };
  }

  /** Stops watching the store once its subscribers have ended; resolves when none reads the log. */
  async close(): Promise<void> {
    this.stopWatching();
    await Promise.all(this.stopping);
  }

  private stopWatching(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /** Pumps the hub of the collection the log names, or every hub when it names none. */
  private wake(changed: string | undefined): void {
    if (changed === undefined) {
      for (const hub of this.hubs.values()) void hub.pump();
      return;
    }
    const collection = this.catalog.byPlural(changed);
    const hub = collection && this.hubs.get(collection);
    if (hub) void hub.pump();
  }
}
