/**
 * A few places for costly work (password hashes), shared fairly: each of a request's
 * holders (its client and its address) may have `perHolder` works running and as many
 * waiting; a work that finds no place waits in a short queue, served round-robin across
 * addresses (an API key is its own), so that one address's loops cannot keep another's
 * request out however fast they resubmit; and it waits at most `maxWaitMs`. Refusals: a
 * 429 of the holder's kind past its own waiting share, a 503 when the queue is full or the
 * wait ran out, both with Retry-After.
 *
 * Written by hand: the queues on npm (p-queue, semaphores) serve first come first served,
 * or round-robin by one key, not within caps on two keys at once.
 */
import { HeldCounts, type HeldThing, type Holder } from '../in-flight-gate.js';
import { Refusal } from '../refusal.js';

export interface FairQueueLimits {
  /** Works running at once, in all. */
  slots: number;
  /** Works one holder (a client, an address) may have running, and as many waiting. */
  perHolder: number;
  /** Works waiting at once, in all. */
  maxWaiting: number;
  /** How long a work may wait for its place before it is refused. */
  maxWaitMs: number;
}

interface Waiter {
  readonly names: readonly string[];
  readonly start: () => void;
  readonly timer: NodeJS.Timeout;
}

export class FairQueue {
  readonly #limits: FairQueueLimits;
  readonly #thing: HeldThing;
  readonly #running = new HeldCounts();
  readonly #waitingBy = new HeldCounts();
  /** Waiters by address, in the order addresses take turns: one served goes to the back. */
  readonly #turns = new Map<string, Waiter[]>();
  #runningTotal = 0;
  #waitingTotal = 0;

  constructor(limits: FairQueueLimits, thing: HeldThing) {
    this.#limits = limits;
    this.#thing = thing;
  }

  /** Runs `work` in a place of `holder`'s, at once or after a short wait, or refuses it. */
  async run<T>(holder: Holder, work: () => Promise<T>): Promise<T> {
    const names = [...new Set([holder.client, holder.address ?? holder.client])];
    // Nothing that waits could take a free place (each release serves them), so a work
    // that fits runs at once.
    if (this.#runningTotal < this.#limits.slots && this.#fits(names)) this.#begin(names);
    else await this.#wait(holder, names);
    try {
      return await work();
    } finally {
      this.#runningTotal--;
      for (const name of names) this.#running.add(name, -1);
      this.#serve();
    }
  }

  #fits(names: readonly string[]): boolean {
    return names.every((name) => this.#running.of(name) < this.#limits.perHolder);
  }

  #begin(names: readonly string[]): void {
    this.#runningTotal++;
    for (const name of names) this.#running.add(name, 1);
  }

  #wait(holder: Holder, names: readonly string[]): Promise<void> {
    const { perHolder, maxWaiting, maxWaitMs } = this.#limits;
    const { kind, noun, retry } = this.#thing;
    const address = holder.address ?? holder.client;
    const full = names.find((name) => this.#waitingBy.of(name) >= perHolder);
    if (full !== undefined) {
      const what = full === holder.address ? 'address' : 'client';
      const detail = `This ${what} already has ${perHolder} ${noun} and ${perHolder} waiting; retry ${retry}.`;
      return Promise.reject(new Refusal(kind, detail, { retryAfter: 1 }));
    }
    if (this.#waitingTotal >= maxWaiting) return Promise.reject(this.#overloaded());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        names,
        start: resolve,
        timer: setTimeout(() => {
          this.#leave(address, waiter);
          reject(this.#overloaded());
        }, maxWaitMs),
      };
      const queue = this.#turns.get(address);
      if (queue) queue.push(waiter);
      else this.#turns.set(address, [waiter]);
      this.#waitingTotal++;
      for (const name of names) this.#waitingBy.add(name, 1);
    });
  }

  /** Starts waiters while there are places, the first address in turn with one that fits. */
  #serve(): void {
    while (this.#runningTotal < this.#limits.slots) {
      const next = this.#nextInTurn();
      if (!next) return;
      clearTimeout(next.timer);
      this.#begin(next.names);
      next.start();
    }
  }

  #nextInTurn(): Waiter | undefined {
    for (const [address, queue] of this.#turns) {
      const waiter = queue.find((candidate) => this.#fits(candidate.names));
      if (!waiter) continue;
      this.#leave(address, waiter);
      // Served: its address waits at the back for its next turn.
      const rest = this.#turns.get(address);
      if (rest) {
        this.#turns.delete(address);
        this.#turns.set(address, rest);
      }
      return waiter;
    }
    return undefined;
  }

  #leave(address: string, waiter: Waiter): void {
    const queue = this.#turns.get(address) ?? [];
    const at = queue.indexOf(waiter);
    if (at < 0) return;
    queue.splice(at, 1);
    if (queue.length === 0) this.#turns.delete(address);
    this.#waitingTotal--;
    for (const name of waiter.names) this.#waitingBy.add(name, -1);
  }

  #overloaded(): Refusal {
    const { noun, retry } = this.#thing;
    return new Refusal('overloaded', `The server has as many ${noun} as it can take; retry ${retry}.`, {
      retryAfter: 1,
    });
  }
}
