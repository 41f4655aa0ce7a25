/**
 * Whether a password reset request's time tells that an account has the address
 * (bench/README.md, "Password reset"): per store, restock (dist/server.js, as `npm start`
 * runs it) over the example shop with one account, sending mail to a real SMTP server in
 * this process (smtp-server, accepting everything). Then `--requests` requests one after
 * the other, alternating between the account's address and one no account has, each timed
 * from sent to answered; warm-up requests first, not counted. It prints each address's
 * median and p90, and the ratio of the medians, whose target is within 5 % of 1. The
 * account's mail is composed, its token minted and the mail sent after its answer, while
 * the next request runs: that is part of what is measured, as it would be for anyone timing
 * the answers. The limits on reset requests are set out of reach; the mails received are
 * counted, as a check that the existing address's mail did go out (one per request).
 *
 *   node --import tsx bench/reset-timing.ts [--requests 200] [--warmup 20] [--stores sqlite,postgres]
 *
 * SQLite runs on a temporary file; PostgreSQL on a scratch database on TEST_POSTGRES_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres), dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { countingSmtp } from './counting-smtp.js';
import { median } from './median.js';
import { startServer } from './servers.js';
import { SHOP_SCHEMAS, scratchDatabase } from './shop-seed.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    stores: { type: 'string', default: 'sqlite,postgres' },
  },
});
const REQUESTS = Number(args.requests);
const WARMUP = Number(args.warmup);
const EXISTING = 'ada@example.com';
const MISSING = 'nobody@example.com';

/** The value at quantile `q` of `values` (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

async function runStore(store: string, work: string): Promise<void> {
  const scratch = await scratchDatabase(store, work);
  if (!scratch) {
    console.log(`${store}: skipped, no PostgreSQL answers (TEST_POSTGRES_URL)`);
    return;
  }
  const smtp = await countingSmtp();
  const key = randomBytes(32).toString('hex');
  const server = await startServer({
    target: 'restock',
    database: scratch.sqlitePath,
    pin: [],
    env: {
      SCHEMAS: SHOP_SCHEMAS,
      API_KEYS: `bench:write:${key}`,
      SMTP_URL: smtp.url,
      SIGN_IN_MAX_FAILURES: '1000000',
      RATE_LIMIT_MAX: '1000000',
      ...(store === 'postgres' && { DATABASE_URL: scratch.url }),
    },
  });
  const ask = async (email: string) => {
    const sent = performance.now();
    const response = await fetch(`${server.url}/users/auth/reset/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    await response.arrayBuffer();
    if (response.status !== 202) throw new Error(`reset request for ${email}: ${response.status}`);
    return performance.now() - sent;
  };
  try {
    const made = await fetch(`${server.url}/user/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ name: 'Ada', email: EXISTING }),
    });
    if (made.status !== 201) throw new Error(`the account: ${made.status} ${await made.text()}`);
    for (let i = 0; i < WARMUP; i++) await ask(i % 2 ? MISSING : EXISTING);
    const times: Record<'existing' | 'missing', number[]> = { existing: [], missing: [] };
    for (let i = 0; i < REQUESTS; i++) {
      // The pair's order alternates too, so that neither address always follows the other's mail.
      const existingFirst = Math.floor(i / 2) % 2 === 0;
      const existing = (i % 2 === 0) === existingFirst;
      times[existing ? 'existing' : 'missing'].push(await ask(existing ? EXISTING : MISSING));
    }
    const [existing, missing] = [median(times.existing), median(times.missing)];
    const p90 = (values: number[]) => quantile(values, 0.9).toFixed(2);
    console.log(
      `${store}: ${REQUESTS} requests after ${WARMUP} of warm-up; existing address median ${existing.toFixed(2)} ms ` +
        `(p90 ${p90(times.existing)}), missing address median ${missing.toFixed(2)} ms (p90 ${p90(times.missing)}); ` +
        `ratio ${(existing / missing).toFixed(3)}; mails received ${smtp.received()} of ` +
        `${times.existing.length + Math.ceil(WARMUP / 2)} asked for the existing address ` +
        '(the last may still be on their way)',
    );
  } finally {
    await server.stop();
    await smtp.close();
    await scratch.drop();
  }
}

const work = mkdtempSync(join(tmpdir(), 'restock-reset-timing-'));
try {
  for (const store of args.stores.split(',')) await runStore(store, work);
} finally {
  rmSync(work, { recursive: true, force: true });
}
