/**
 * `node --import tsx bench/webhooks.ts` (or `npm run bench -- --scenarios webhooks`): what
 * webhooks cost and how late they are, on SQLite and on PostgreSQL (a database made and
 * dropped here). See bench/README.md, "Webhooks".
 *
 * - Lag: a restock with `--webhooks` (5) webhooks on the products, each to a receiver
 *   answering 204 (made through `POST /webhooks/`), takes creates and updates paced at `--rate` (1,000) a second, `--warmup`
 *   (2) s and then `--seconds` (10) s measured; for every delivery of a measured write, the
 *   receiver's arrival time less the record's `updatedAt` (and less the payload's
 *   `timestamp`, the change's logged time). Prints p50 and p99 of each.
 * - Throughput: the same server and one with no webhook, each on a database of its own,
 *   take merge PUTs from wrk over `--connections` (50) as fast as they answer, `--rounds`
 *   (5) of `--duration` (5) s each, their order alternating; the ratio is the median of the
 *   rounds' req/s with webhooks over without. Before the next load the webhooks' backlog is
 *   let drain (it is timed), so that it does not load the other server's core.
 *
 * The server is pinned to core 1; wrk, this process (the paced writer) and the receivers'
 * process to core 0; PostgreSQL is not pinned. Also: `--stores sqlite,postgres`, `--products`
 * (1,000 seeded, which the updates draw from), `--env KEY=VALUE` for the servers, and
 * `--cpu-prof DIR` for a V8 profile of the server with webhooks.
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { onBothStores } from './both-stores.js';
import { median, percentile } from './median.js';
import { type BenchServer, corePins, startServer, waitUntilIdle } from './servers.js';
import {
  closeAgent,
  makeWebhooks,
  pacedWrites,
  type Receivers,
  secondDatabase,
  seedProducts,
  startReceivers,
} from './webhook-load.js';
import { ensureWrk, runLoad } from './wrk.js';

const { values: flags } = parseArgs({
  options: {
    rate: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    webhooks: { type: 'string' },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    products: { type: 'string' },
    stores: { type: 'string' },
    env: { type: 'string', multiple: true },
    'cpu-prof': { type: 'string' },
  },
});
const RATE = Number(flags.rate ?? 1000);
const SECONDS = Number(flags.seconds ?? 10);
const WARMUP = Number(flags.warmup ?? 2);
const WEBHOOKS = Number(flags.webhooks ?? 5);
const ROUNDS = Number(flags.rounds ?? 5);
const DURATION = Number(flags.duration ?? 5);
const CONNECTIONS = Number(flags.connections ?? 50);
const PRODUCTS = Number(flags.products ?? 1000);
const STORES = flags.stores?.split(',') ?? ['sqlite', 'postgres'];
/** The targets of the issue: p99 of the lag, per store; and throughput with webhooks over without. */
const LAG_P99_TARGET_MS: Record<string, number> = { SQLite: 100, PostgreSQL: 200 };
const THROUGHPUT_TARGET = 0.9;
/** The longest a backlog of deliveries may take to drain before the run goes on regardless. */
const DRAIN_LIMIT_MS = 180_000;

const pins = corePins();
/** `--env KEY=VALUE` (repeatable) for the servers, e.g. `WEBHOOKS_IN_FLIGHT_PER_WEBHOOK=64`. */
const SERVER_ENV = {
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  RATE_LIMIT_MAX: '0',
  ...Object.fromEntries((flags.env ?? []).map((pair) => [pair.split('=', 1)[0], pair.slice(pair.indexOf('=') + 1)])),
};
const PUT = {
  method: 'PUT',
  path: '/product/{id}/',
  ids: 'random' as const,
  body: JSON.stringify({ price: 17.5, stock: 3, sale: { until: '2030-01-01', percent: 10 } }),
  headers: { 'Content-Type': 'application/json' },
};
const out = (line: string) => process.stdout.write(`${line}\n`);
const ms = (value: number) => `${value.toFixed(1)} ms`;

let receivers: Receivers;

/** Waits until the receivers have heard nothing new for a second (or DRAIN_LIMIT_MS); the time it took. */
async function drained(): Promise<number> {
  const started = Date.now();
  let last = await receivers.count();
  let quietSince = Date.now();
  while (Date.now() - quietSince < 1000 && Date.now() - started < DRAIN_LIMIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await receivers.count();
    if (now !== last) quietSince = Date.now();
    last = now;
  }
  return quietSince - started;
}

async function lag(store: string, server: BenchServer, ids: number[]): Promise<void> {
  await pacedWrites(server.url, ids, RATE, WARMUP);
  await receivers.take();
  const cpuBefore = server.cpuSeconds();
  const run = await pacedWrites(server.url, ids, RATE, SECONDS);
  const cpu = server.cpuSeconds() - cpuBefore;
  await drained();
  const wanted = new Set(run.written);
  const mine = (await receivers.take()).filter((sample) => wanted.has(sample.key));
  const fromUpdated = mine.map((s) => s.arrival - s.updatedAt);
  const fromLogged = mine.map((s) => s.arrival - s.timestamp);
  const p99 = percentile(fromUpdated, 99);
  // The lag second by second of the run: a backlog that grows shows as a rising p50.
  const first = Math.min(...mine.map((s) => s.updatedAt));
  const bySecond = Array.from({ length: Math.ceil(SECONDS) }, (_, i) =>
    mine.filter((s) => Math.floor((s.updatedAt - first) / 1000) === i).map((s) => s.arrival - s.updatedAt),
  );
  const target = LAG_P99_TARGET_MS[store] ?? Number.NaN;
  out(
    `${store.padEnd(10)} lag: ${run.rate.toFixed(0)} writes/s reached (target ${RATE}), ${run.errors} errors; ` +
      `${mine.length} of ${run.written.length * WEBHOOKS} deliveries; server CPU ${((cpu / SECONDS) * 100).toFixed(0)} % of a core`,
  );
  out(
    `${store.padEnd(10)} lag from updatedAt: p50 ${ms(percentile(fromUpdated, 50))}, p99 ${ms(p99)}, ` +
      `max ${ms(Math.max(...fromUpdated))} (target p99 < ${target} ms: ${p99 < target ? 'met' : 'NOT MET'}); ` +
      `from timestamp: p50 ${ms(percentile(fromLogged, 50))}, p99 ${ms(percentile(fromLogged, 99))}`,
  );
  out(
    `${store.padEnd(10)} lag p50 by second: ${bySecond.map((lags) => percentile(lags, 50).toFixed(0)).join(', ')} ms`,
  );
}

interface Round {
  rps: number;
  errors: number;
  /** Server CPU per write, the deliveries' drain included. */
  cpuUs: number;
  drainMs: number;
  delivered: number;
}

async function load(server: BenchServer, lastId: number, seconds: number, hooked: boolean): Promise<Round> {
  const cpuBefore = server.cpuSeconds();
  const heardBefore = await receivers.count();
  const result = await runLoad({
    url: server.url,
    scenario: PUT,
    connections: CONNECTIONS,
    seconds,
    idFrom: 1,
    idTo: lastId,
    pin: pins.load,
  });
  const drainMs = hooked ? await drained() : 0;
  await waitUntilIdle(server);
  const delivered = (await receivers.count()) - heardBefore;
  const cpuUs = ((server.cpuSeconds() - cpuBefore) * 1e6) / Math.max(1, result.requests);
  return {
    rps: result.rps,
    errors: result.errors,
    cpuUs,
    drainMs,
    delivered: delivered / Math.max(1, result.requests),
  };
}

async function throughput(store: string, hooked: BenchServer, bare: BenchServer, lastId: number): Promise<void> {
  await load(hooked, lastId, 2, true);
  await load(bare, lastId, 2, false);
  const rounds: { hooked: Round; bare: Round }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const first = round % 2 === 0;
    const a = first ? await load(hooked, lastId, DURATION, true) : await load(bare, lastId, DURATION, false);
    const b = first ? await load(bare, lastId, DURATION, false) : await load(hooked, lastId, DURATION, true);
    const pair = first ? { hooked: a, bare: b } : { hooked: b, bare: a };
    rounds.push(pair);
    out(
      `${store.padEnd(10)} round ${round + 1}: ${WEBHOOKS} webhooks ${pair.hooked.rps.toFixed(0)} writes/s ` +
        `(${pair.hooked.cpuUs.toFixed(0)} µs CPU/write, ${pair.hooked.delivered.toFixed(2)} deliveries/write, ` +
        `backlog drained in ${(pair.hooked.drainMs / 1000).toFixed(1)} s), none ${pair.bare.rps.toFixed(0)} writes/s ` +
        `(${pair.bare.cpuUs.toFixed(0)} µs CPU/write); ratio ${(pair.hooked.rps / pair.bare.rps).toFixed(2)}` +
        (pair.hooked.errors + pair.bare.errors > 0 ? `, ${pair.hooked.errors + pair.bare.errors} ERRORS` : ''),
    );
  }
  const ratios = rounds.map((r) => r.hooked.rps / r.bare.rps);
  const ratio = median(ratios);
  out(
    `${store.padEnd(10)} throughput: ${WEBHOOKS} webhooks ${median(rounds.map((r) => r.hooked.rps)).toFixed(0)} writes/s, ` +
      `none ${median(rounds.map((r) => r.bare.rps)).toFixed(0)}; ratio ${ratio.toFixed(2)} ` +
      `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; target >= ${THROUGHPUT_TARGET}: ` +
      `${ratio >= THROUGHPUT_TARGET ? 'met' : 'NOT MET'}); CPU/write ${median(rounds.map((r) => r.hooked.cpuUs)).toFixed(0)} ` +
      `against ${median(rounds.map((r) => r.bare.cpuUs)).toFixed(0)} µs`,
  );
}

async function measure(store: string, env: Record<string, string>, database: string): Promise<void> {
  const second = env.DATABASE_URL ? await secondDatabase(env.DATABASE_URL) : undefined;
  const bareEnv: Record<string, string> = second ? { DATABASE_URL: second.url } : {};
  const servers: BenchServer[] = [];
  try {
    const start = (file: string, extra: Record<string, string>, nodeFlags: string[] = []) =>
      startServer({
        target: 'restock',
        database: file,
        pin: pins.server,
        nodeFlags,
        env: { ...env, ...extra, ...SERVER_ENV },
      });
    // `--cpu-prof DIR`: the server with webhooks writes a V8 profile there (bench/profile-summary.ts reads it).
    const profile = flags['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', flags['cpu-prof']] : [];
    const hooked = await start(database, {}, profile);
    servers.push(hooked);
    const bare = await start(database.replace(/\.db$/, '-none.db'), bareEnv);
    servers.push(bare);
    await makeWebhooks(hooked.url, receivers.urls);
    const ids = await seedProducts(hooked.url, PRODUCTS);
    await seedProducts(bare.url, PRODUCTS);
    await drained();
    await lag(store, hooked, ids);
    await throughput(store, hooked, bare, PRODUCTS);
  } finally {
    for (const server of servers) await server.stop();
    await second?.drop();
  }
}

async function main(): Promise<void> {
  ensureWrk();
  // This process writes the paced load: on the load's core, off the server's.
  if (pins.load.length > 0) execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  receivers = await startReceivers(WEBHOOKS, pins.load);
  try {
    await onBothStores('webhooks', measure, STORES);
  } finally {
    receivers.stop();
    closeAgent();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`webhooks: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
