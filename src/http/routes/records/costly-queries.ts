/**
 * Caps on the costly list queries (filters, searches, sorts without an index, counts) that
 * may run at once: per client, so that one API key cannot hold every read thread or
 * database connection, and in all, so that cheap requests and health checks always find
 * one free. A query past a cap is refused at once, not queued: a 429 past the client's
 * own cap, a 503 past the total, both with Retry-After.
 *
 * Written by hand: @fastify/rate-limit counts requests over time, not requests in flight.
 */
import { HttpProblem } from '../../problem.js';

export interface CostlyQueryCaps {
  /** Costly queries one client (API key, else address) may have running; 0: no cap. */
  perClient: number;
  /** Costly queries all clients together may have running; 0: no cap. */
  total: number;
}

export class CostlyQueryGate {
  readonly #caps: CostlyQueryCaps;
  readonly #running = new Map<string, number>();
  #total = 0;

  constructor(caps: CostlyQueryCaps) {
    this.#caps = caps;
  }

  /** Runs `work` as one of `client`'s costly queries, or refuses it with a problem. */
  async run<T>(client: string, work: () => Promise<T>): Promise<T> {
    const mine = this.#running.get(client) ?? 0;
    const { perClient, total } = this.#caps;
    if (perClient > 0 && mine >= perClient) {
      throw new HttpProblem(
        'too-many-costly-queries',
        `This client already has ${mine} costly queries running; retry once one has finished.`,
        { headers: { 'retry-after': '1' } },
      );
    }
    if (total > 0 && this.#total >= total) {
      throw new HttpProblem('overloaded', 'Too many costly queries are running; try again shortly.', {
        headers: { 'retry-after': '1' },
      });
    }
    this.#running.set(client, mine + 1);
    this.#total++;
    try {
      return await work();
    } finally {
      this.#total--;
      const left = (this.#running.get(client) ?? 1) - 1;
      if (left === 0) this.#running.delete(client);
      else this.#running.set(client, left);
    }
  }

  /** Costly queries running now, for /metrics. */
  get running(): number {
    return this.#total;
  }
}
