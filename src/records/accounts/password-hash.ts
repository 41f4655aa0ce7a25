/**
 * Password hashes: scrypt from node:crypto (memory-hard, salted, tunable), kept as a PHC
 * string, `$scrypt$ln=15,r=8,p=1$<salt>$<hash>`, so that a hash made at one cost is still
 * checked after the cost is raised. Hashing runs on libuv's thread pool, off the event loop.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost: N = 2^logN, block size r, parallelism p. */
export interface HashCost {
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}

/**
 * N = 2^15, r = 8, p = 3: one of OWASP's equivalent minimums for scrypt, between 2^17, 8, 1
 * (128 MiB a hash) and 2^13, 8, 10 (8 MiB, but ten passes): 32 MiB per sign-in in progress,
 * about 0.3 s of one core per hash (docs/performance.md). Slow for a guesser, rare for a person.
 */
export const DEFAULT_HASH_COST: HashCost = { logN: 15, r: 8, p: 3 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, { logN, r, p }: HashCost, length: number): Promise<Buffer> {
  const N = 2 ** logN;
  // scrypt needs 128·N·r bytes; Node refuses past maxmem, 32 MiB unless raised.
  const maxmem = 256 * N * r + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, { N, r, p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** The hash of `password` at `cost`, with a new random salt. */
export async function hashPassword(password: string, cost: HashCost = DEFAULT_HASH_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost, HASH_BYTES);
  return `$scrypt$ln=${cost.logN},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(key)}`;
}

/** Whether `hash` is a password hash this module wrote (for an import of exported hashes). */
export function isPasswordHash(hash: string): boolean {
  return PHC.test(hash);
}

/** Whether `password` is the one `hash` was made from; a hash this module cannot read matches nothing. */
export async function passwordMatches(password: string, hash: string): Promise<boolean> {
  const found = PHC.exec(hash);
  if (!found) return false;
  const [, logN, r, p, salt, expected] = found as unknown as [string, string, string, string, string, string];
  const wanted = Buffer.from(expected, 'base64');
  const cost = { logN: Number(logN), r: Number(r), p: Number(p) };
  if (cost.logN < 1 || cost.logN > 22 || cost.r < 1 || cost.p < 1 || wanted.length < 16) return false;
  const key = await derive(password, Buffer.from(salt, 'base64'), cost, wanted.length);
  return timingSafeEqual(key, wanted);
}

/**
 * A hash of a password no one knows, at `cost`: checked against when no account has the
 * name given, so that a wrong name and a wrong password take the same time.
 */
export function decoyHash(cost: HashCost = DEFAULT_HASH_COST): Promise<string> {
  return hashPassword(randomBytes(24).toString('base64'), cost);
}
