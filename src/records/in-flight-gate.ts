/**
 * Caps on what a client may hold at once (costly list queries running, change feeds open):
 * per client, so that one API key cannot hold every read thread, connection or file
 * descriptor, and in all, so that cheap requests and health checks always find room. One
 * past a cap is refused at once, not queued: a 429 past the client's own cap, a 503 past
 * the total, both with Retry-After.
 *
 * Written by hand: @fastify/rate-limit counts requests over time, not what is held now.
 */
import { Refusal, type RefusalKind } from './refusal.js';

export interface InFlightCaps {
  /** What one client (API key, else address) may hold at once; 0: no cap. */
  perClient: number;
  /** What all clients together may hold at once; 0: no cap. */
  total: number;
}

/** What is held, for the refusals' words: "costly queries running", "change feeds open". */
export interface HeldThing {
  /** The 429's kind, past a client's own cap. */
  kind: RefusalKind;
  /** Plural, with its state: "costly queries running". */
  noun: string;
  /** When to retry: "once one has finished". */
  retry: string;
}

export class InFlightGate {
  readonly #caps: InFlightCaps;
  readonly #thing: HeldThing;
  readonly #held = new Map<string, number>();
  #total = 0;

  constructor(caps: InFlightCaps, thing: HeldThing) {
    this.#caps = caps;
    this.#thing = thing;
  }

  /** Takes one of `client`'s places, or refuses with a problem; returns how to give it back (once). */
  take(client: string): () => void {
    const mine = this.#held.get(client) ?? 0;
    const { perClient, total } = this.#caps;
    const { kind, noun, retry } = this.#thing;
    if (perClient > 0 && mine >= perClient) {
      throw new Refusal(kind, `This client already has ${mine} ${noun}; retry ${retry}.`, { retryAfter: 1 });
    }
    if (total > 0 && this.#total >= total) {
      throw new Refusal('overloaded', `The server has ${this.#total} ${noun}, its most; retry ${retry}.`, {
        retryAfter: 1,
      });
    }
    this.#held.set(client, mine + 1);
    this.#total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#total--;
      const left = (this.#held.get(client) ?? 1) - 1;
      if (left === 0) this.#held.delete(client);
      else this.#held.set(client, left);
    };
  }

  /** Runs `work` in one of `client`'s places, or refuses it with a problem. */
  async run<T>(client: string, work: () => Promise<T>): Promise<T> {
    const giveBack = this.take(client);
    try {
      return await work();
    } finally {
      giveBack();
    }
  }
}
