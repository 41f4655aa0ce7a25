/**
 * Hashing passwords without letting it take the server, nor letting one client take it from
 * the others: each hash holds one of libuv's four pool threads and 32 MiB for a third of a
 * second, so at most a few run at once, shared fairly (./fair-queue.ts): a client and an
 * address may each hold only part of them, and a hash that finds none free waits briefly
 * for its turn, addresses taking turns. Every hash, a sign-in that succeeds too, also
 * spends a budget per address and per account over a quarter of an hour, so that a client
 * signing in to its own account or changing its own password in a loop is soon refused.
 */

import type { Holder } from '../in-flight-gate.js';
import { Refusal } from '../refusal.js';
import { FairQueue } from './fair-queue.js';
import { DEFAULT_HASH_COST, decoyHash, type HashCost, hashPassword, passwordMatches } from './password-hash.js';
import { memoryCounts, type WindowCounts } from './window-counts.js';

/**
 * Hashes at once, below libuv's default pool of four threads; two per client and address,
 * and as many waiting; at most twenty waiting in all, each for at most two seconds (about
 * six hashes' time at the default cost, on three threads: twenty turns).
 */
const LIMITS = { slots: 3, perHolder: 2, maxWaiting: 20, maxWaitMs: 2000 };

/** The window the budget of hashes is counted in. */
export const HASH_BUDGET_WINDOW_MS = 15 * 60 * 1000;

export interface HasherOptions {
  cost?: HashCost;
  /** Hashes per address, and per account, in {@link HASH_BUDGET_WINDOW_MS}; 0: no budget. */
  budget?: number;
}

export class PasswordHasher {
  readonly #cost: HashCost;
  readonly #budget: number;
  readonly #spent: WindowCounts = memoryCounts(HASH_BUDGET_WINDOW_MS);
  readonly #queue = new FairQueue(LIMITS, {
    kind: 'too-many-sign-ins',
    noun: 'passwords being checked',
    retry: 'in a moment',
  });
  readonly #decoy: Promise<string>;

  constructor({ cost = DEFAULT_HASH_COST, budget = 0 }: HasherOptions = {}) {
    this.#cost = cost;
    this.#budget = budget;
    // Made now, not at the first unknown name, which would otherwise take twice as long.
    this.#decoy = decoyHash(cost);
  }

  /** The hash of a new password, made in one of `holder`'s places and budget. */
  async hash(password: string, holder: Holder): Promise<string> {
    await this.#spend(holder);
    return this.#queue.run(holder, () => hashPassword(password, this.#cost));
  }

  /**
   * Whether `password` is the one `hash` holds; with no hash (no such account), it is
   * checked against a decoy all the same, so that the answer takes the same time.
   */
  async matches(password: string, hash: string | undefined, holder: Holder): Promise<boolean> {
    await this.#spend(holder);
    return this.#queue.run(holder, async () => {
      const against = hash ?? (await this.#decoy);
      const matched = await passwordMatches(password, against);
      return matched && hash !== undefined;
    });
  }

  /**
   * Counts one hash against the holder's address and client, or refuses it (429) once
   * either has spent its budget. An API key (no address) has none: a service's own
   * credential, it may create accounts in bulk.
   */
  async #spend({ client, address }: Holder): Promise<void> {
    if (this.#budget === 0 || address === undefined) return;
    const names = [...new Set([address, client])];
    const seen = await Promise.all(names.map((name) => this.#spent.read(name)));
    const over = seen.filter(({ count }) => count >= this.#budget);
    if (over.length > 0) {
      const retryAfter = Math.ceil(Math.max(...over.map(({ leftMs }) => leftMs)) / 1000);
      throw new Refusal(
        'too-many-sign-ins',
        `This account or address has had ${this.#budget} passwords checked lately, its most; retry in ${retryAfter} s.`,
        { retryAfter },
      );
    }
    await Promise.all(names.map((name) => this.#spent.add(name)));
  }
}
