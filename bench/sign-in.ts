/**
 * What a sign-in costs: a restock over the example shop at one PASSWORD_HASH_COST, pinned to
 * one core, one account signed up through the API (so its hash is made at that cost), then
 * a bounded number of correct sign-ins, two at a time (the most one client may have hashing
 * at once). Pinned to one core, sign-ins per second of wall time is per core; the server's
 * CPU time per sign-in says the same without the pin.
 */
import { median } from './median.js';
import { startServer } from './servers.js';
import { SHOP_SCHEMAS } from './shop-seed.js';

/** Hashes one client may have running at once (src/records/accounts/password-hasher.ts). */
const CONCURRENCY = 2;

export interface SignInFigures {
  /** PASSWORD_HASH_COST: log2(N), r, p. */
  cost: string;
  signIns: number;
  concurrency: number;
  /** Sign-ins per second of wall time, the server on one core (or not pinned: see `pinned`). */
  perSecond: number;
  /** The server's CPU seconds per sign-in, every thread (the hashes run on libuv's pool). */
  cpuSecondsEach: number;
  p50Ms: number;
  pinned: boolean;
}

export interface SignInOptions {
  cost: string;
  signIns: number;
  /** A SQLite file for this server alone. */
  database: string;
  pin: string[];
  env: Record<string, string>;
}

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

export async function measureSignIns(options: SignInOptions): Promise<SignInFigures> {
  const server = await startServer({
    target: 'restock',
    database: options.database,
    pin: options.pin,
    env: { SCHEMAS: SHOP_SCHEMAS, ...options.env, PASSWORD_HASH_COST: options.cost },
  });
  try {
    const account = { email: 'signer@example.com', password: 'correct horse battery staple' };
    const created = await post(`${server.url}/user/`, { name: 'Signer', ...account });
    if (created.status !== 201) throw new Error(`sign-up answered ${created.status}: ${created.text}`);
    const signIn = async () => {
      const started = performance.now();
      const answer = await post(`${server.url}/users/auth/`, account);
      if (answer.status !== 200 || !answer.text.includes('"token"')) {
        throw new Error(`sign-in answered ${answer.status}: ${answer.text}`);
      }
      return performance.now() - started;
    };
    // One first, not counted: the first signature and the first refresh token's statements.
    await signIn();
    const times: number[] = [];
    let next = 0;
    const cpuBefore = server.cpuSeconds();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < options.signIns) times.push(await signIn());
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = server.cpuSeconds() - cpuBefore;
    return {
      cost: options.cost,
      signIns: options.signIns,
      concurrency: CONCURRENCY,
      perSecond: options.signIns / seconds,
      cpuSecondsEach: cpu / options.signIns,
      p50Ms: median(times),
      pinned: options.pin.length > 0,
    };
  } finally {
    await server.stop();
  }
}
