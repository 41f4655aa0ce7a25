/**
 * Hashing passwords without letting it take the server: each hash holds one of libuv's
 * four pool threads and 32 MiB for a third of a second, so at most a few run at once (one
 * past the cap is refused with a 503 or 429 and Retry-After, never queued), and a client
 * may hold only part of them.
 */
import { InFlightGate } from '../in-flight-gate.js';
import { DEFAULT_HASH_COST, decoyHash, type HashCost, hashPassword, passwordMatches } from './password-hash.js';

/** Hashes at once, in all and per client: below libuv's default pool of four threads. */
const CAPS = { total: 3, perClient: 2 };

export class PasswordHasher {
  readonly #cost: HashCost;
  readonly #gate = new InFlightGate(CAPS, {
    kind: 'too-many-sign-ins',
    noun: 'passwords being checked',
    retry: 'in a moment',
  });
  readonly #decoy: Promise<string>;

  constructor(cost: HashCost = DEFAULT_HASH_COST) {
    this.#cost = cost;
    // Made now, not at the first unknown name, which would otherwise take twice as long.
    this.#decoy = decoyHash(cost);
  }

  /** The hash of a new password, made in one of `client`'s places. */
  hash(password: string, client: string): Promise<string> {
    return this.#gate.run(client, () => hashPassword(password, this.#cost));
  }

  /**
   * Whether `password` is the one `hash` holds; with no hash (no such account), it is
   * checked against a decoy all the same, so that the answer takes the same time.
   */
  matches(password: string, hash: string | undefined, client: string): Promise<boolean> {
    return this.#gate.run(client, async () => {
      const against = hash ?? (await this.#decoy);
      const matched = await passwordMatches(password, against);
      return matched && hash !== undefined;
    });
  }
}
