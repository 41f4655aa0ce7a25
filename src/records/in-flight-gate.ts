/**
 * Caps on what a client may hold at once (costly list queries running, change feeds open):
 * per client, so that one API key or account cannot hold every read thread, connection or
 * file descriptor; per address, so that accounts, which anyone may open, cannot be
 * multiplied into the whole of it; and in all, so that cheap requests and health checks
 * always find room. One past a cap is refused at once, not queued: a 429 past the client's
 * or the address's own cap, a 503 past the total, both with Retry-After.
 *
 * Written by hand: @fastify/rate-limit counts requests over time, not what is held now.
 */
import { Refusal, type RefusalKind } from './refusal.js';

export interface InFlightCaps {
  /** What one client (API key, account, else address) may hold at once; 0: no cap, per client or per address. */
  perClient: number;
  /** What all clients together may hold at once; 0: no cap. */
  total: number;
}

/**
 * Who holds what a request takes: its client (an API key, an account, else its address),
 * and the address it came from, absent for an API key, a service's own credential, which
 * answers for itself. A request without either credential is its address twice over.
 */
export interface Holder {
  readonly client: string;
  readonly address?: string;
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

/** The part of the total one address may hold: a quarter. */
const ADDRESS_SHARE = 4;

/**
 * What one address may hold at once: a quarter of the total, and never less than one client
 * may; no cap when either cap is off (`perClient` 0 lifts the caps on each caller).
 */
export function addressCap({ perClient, total }: InFlightCaps): number {
  if (perClient === 0 || total === 0) return 0;
  return Math.max(perClient, Math.ceil(total / ADDRESS_SHARE));
}

/** How many of each name are held now: a count per name, forgotten at 0. */
export class HeldCounts {
  readonly #held = new Map<string, number>();

  of(name: string): number {
    return this.#held.get(name) ?? 0;
  }

  add(name: string, by: 1 | -1): void {
    const next = this.of(name) + by;
    if (next <= 0) this.#held.delete(name);
    else this.#held.set(name, next);
  }
}

export class InFlightGate {
  readonly #caps: InFlightCaps;
  readonly #perAddress: number;
  readonly #thing: HeldThing;
  readonly #byClient = new HeldCounts();
  readonly #byAddress = new HeldCounts();
  #total = 0;

  constructor(caps: InFlightCaps, thing: HeldThing) {
    this.#caps = caps;
    this.#perAddress = addressCap(caps);
    this.#thing = thing;
  }

  /** Takes one of `holder`'s places, or refuses with a problem; returns how to give it back (once). */
  take({ client, address }: Holder): () => void {
    const { perClient, total } = this.#caps;
    const { kind, noun, retry } = this.#thing;
    const mine = this.#byClient.of(client);
    if (perClient > 0 && mine >= perClient) {
      throw new Refusal(kind, `This client already has ${mine} ${noun}; retry ${retry}.`, { retryAfter: 1 });
    }
    const ours = address === undefined ? 0 : this.#byAddress.of(address);
    if (this.#perAddress > 0 && ours >= this.#perAddress) {
      throw new Refusal(kind, `This address already has ${ours} ${noun}, its share; retry ${retry}.`, {
        retryAfter: 1,
      });
    }
    if (total > 0 && this.#total >= total) {
      throw new Refusal('overloaded', `The server has ${this.#total} ${noun}, its most; retry ${retry}.`, {
        retryAfter: 1,
      });
    }
    this.#hold(client, address, 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#hold(client, address, -1);
    };
  }

  /** Runs `work` in one of `holder`'s places, or refuses it with a problem. */
  async run<T>(holder: Holder, work: () => Promise<T>): Promise<T> {
    const giveBack = this.take(holder);
    try {
      return await work();
    } finally {
      giveBack();
    }
  }

  #hold(client: string, address: string | undefined, by: 1 | -1): void {
    this.#total += by;
    this.#byClient.add(client, by);
    if (address !== undefined) this.#byAddress.add(address, by);
  }
}
