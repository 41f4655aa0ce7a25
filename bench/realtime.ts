/**
 * `node --import tsx bench/realtime.ts` (or `npm run bench -- --realtime`): how soon a create
 * reaches the subscribers of the products' change feed. See bench/README.md, "Realtime".
 *
 * - Fan-out, SQLite: `--subscribers` (100) on `GET /products/events/`, each on a connection of
 *   its own; `--warmup` (5) creates not counted, then `--creates` (40), one every
 *   `--interval` (150) ms. For every event at every subscriber, the time from just before its
 *   POST was sent and from its POST's answer; p50, p99 and max of each per round, then the
 *   median and range over `--rounds` (3). With `--pocketbase`, the same on PocketBase 0.22's
 *   realtime API, the two alternating which goes first from one round to the next.
 * - Many, SQLite: `--many` (1,000; 0 skips it) subscribers on a fresh server each round: the
 *   same figures, and the server's resident memory before they connect, with them connected
 *   and idle, and after the creates.
 * - PostgreSQL: two restock processes on one database (made and dropped here), half the
 *   subscribers on each, the creates sent to the first: the figures per instance.
 *
 * Servers are pinned to core 1 (both instances on PostgreSQL; PostgreSQL itself is not);
 * this process, the subscribers and the writer alike, to core 0. `--stores sqlite,postgres`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { onBothStores } from './both-stores.js';
import { ensurePocketBase, startRealtimePocketBase } from './peers/pocketbase.js';
import { closeWriter, type FeedServer } from './realtime-feeds.js';
import { CPU_LEGEND, cell, over, type Round, type Summary, summarize, tableLines } from './realtime-figures.js';
import { describeRound as describe, type RoundPlan, round } from './realtime-round.js';
import { type BenchServer, corePins, cpuSecondsOf, freePort, startServer, waitUntilIdle } from './servers.js';

const { values: flags } = parseArgs({
  options: {
    subscribers: { type: 'string' },
    creates: { type: 'string' },
    interval: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    many: { type: 'string' },
    stores: { type: 'string' },
    pocketbase: { type: 'boolean' },
  },
});
const SUBSCRIBERS = Number(flags.subscribers ?? 100);
const CREATES = Number(flags.creates ?? 40);
const INTERVAL = Number(flags.interval ?? 150);
const WARMUP = Number(flags.warmup ?? 5);
const ROUNDS = Number(flags.rounds ?? 3);
const MANY = Number(flags.many ?? 1000);
const STORES = flags.stores?.split(',') ?? ['sqlite', 'postgres'];
const ROOT = new URL('..', import.meta.url).pathname;

/**
 * All the bench's subscribers come from one address, which restock caps at 50 feeds (and a
 * process at 1,000): the caps are lifted, as run.ts lifts the rate limit's budget.
 */
const FEED_ENV = { EVENTS_MAX_FEEDS: '0', EVENTS_MAX_FEEDS_PER_CLIENT: '0' };

const pins = corePins();
const log = (line: string) => process.stderr.write(`${line}\n`);
const lines: string[] = [];
const report: Record<string, unknown> = { loadAverageAtStart: loadavg() };

function rssMb(pid: number): number {
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

const restockFeed = (server: BenchServer): FeedServer => ({ kind: 'restock', url: server.url, pid: server.pid });

/** A round of the bench's creates: `count` subscribers on `feeds`, the creates to the first. */
const plan = (feeds: FeedServer[], count: number, hooks: Pick<RoundPlan, 'idle' | 'done'> = {}): RoundPlan => ({
  feeds,
  writer: feeds[0] as FeedServer,
  count,
  warmup: WARMUP,
  creates: CREATES,
  intervalMs: INTERVAL,
  ...hooks,
});

/** Fan-out on SQLite: restock, and PocketBase beside it when asked, the order alternating. */
async function fanOut(database: string): Promise<void> {
  const servers: BenchServer[] = [];
  try {
    const restock = await startServer({ target: 'restock', database, pin: pins.server, env: FEED_ENV });
    servers.push(restock);
    const targets: [string, BenchServer, FeedServer][] = [['restock, SQLite', restock, restockFeed(restock)]];
    if (flags.pocketbase) {
      const pb = await startRealtimePocketBase(join(dirname(database), 'pb_data'), await freePort(), pins.server);
      const server: BenchServer = {
        ...pb,
        peakRssMb: () => Number.NaN,
        cpuSeconds: () => cpuSecondsOf(pb.pid),
      };
      servers.push(server);
      targets.push(['PocketBase 0.22.20', server, { kind: 'pocketbase', url: pb.url, pid: pb.pid }]);
    }
    const rounds = new Map<string, Round[]>(targets.map(([name]) => [name, []]));
    for (let r = 1; r <= ROUNDS; r++) {
      for (const [name, server, feed] of r % 2 === 1 ? targets : [...targets].reverse()) {
        const [figures] = (await round(plan([feed], SUBSCRIBERS))) as [Round];
        rounds.get(name)?.push(figures);
        log(describe(`round ${r}, ${name}`, figures));
        await waitUntilIdle(server);
      }
    }
    const rows = [...rounds].map(([name, rs]): [string, Summary] => [name, summarize(rs)]);
    report.fanOut = { subscribers: SUBSCRIBERS, rows: Object.fromEntries(rows), rounds: Object.fromEntries(rounds) };
    lines.push(...table(`${SUBSCRIBERS} subscribers`, rows), '');
  } finally {
    for (const server of servers) await server.stop();
  }
}

/** `count` subscribers on SQLite, a fresh server each round: the delays, and the server's memory. */
async function many(database: string, count: number): Promise<void> {
  const rounds: Round[] = [];
  const memory: { before: number; idle: number; after: number }[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const file = database.replace(/\.db$/, `-many-${r}.db`);
    const server = await startServer({ target: 'restock', database: file, pin: pins.server, env: FEED_ENV });
    try {
      await waitUntilIdle(server);
      const rss = { before: rssMb(server.pid), idle: 0, after: 0 };
      const idle = async () => {
        await waitUntilIdle(server);
        rss.idle = rssMb(server.pid);
      };
      const done = async () => {
        await waitUntilIdle(server);
        rss.after = rssMb(server.pid);
      };
      const [figures] = (await round(plan([restockFeed(server)], count, { idle, done }))) as [Round];
      rounds.push(figures);
      memory.push(rss);
      log(describe(`round ${r}, ${count} subscribers`, figures));
      log(`  RSS ${rss.before.toFixed(0)} MB before, ${rss.idle.toFixed(0)} idle, ${rss.after.toFixed(0)} after`);
    } finally {
      await server.stop();
    }
  }
  const summary = summarize(rounds);
  report.many = { subscribers: count, summary, rounds, memory };
  const mb = (pick: (m: (typeof memory)[number]) => number) => `${cell(over(memory.map(pick)), 0)} MB`;
  lines.push(
    ...table(`${count} subscribers, a fresh server each round`, [['restock, SQLite', summary]]),
    `server RSS, median (range): ${mb((m) => m.before)} before the subscribers, ${mb((m) => m.idle)} with them ` +
      `connected and idle, ${mb((m) => m.after)} after the creates; growth ${mb((m) => m.idle - m.before)} ` +
      `connecting, ${mb((m) => m.after - m.before)} in all`,
    '',
  );
}

/** Two restock processes on one PostgreSQL database, half the subscribers on each, the creates on the first. */
async function twoInstances(env: Record<string, string>): Promise<void> {
  const servers: BenchServer[] = [];
  try {
    // One after the other: the first start makes the tables.
    for (let i = 0; i < 2; i++)
      servers.push(
        await startServer({ target: 'restock', database: '', pin: pins.server, env: { ...env, ...FEED_ENV } }),
      );
    const feeds = servers.map(restockFeed);
    const names = ['PostgreSQL, the first (writes)', 'PostgreSQL, the other'];
    const rounds: Round[][] = [[], []];
    for (let r = 1; r <= ROUNDS; r++) {
      const figures = await round(plan(feeds, SUBSCRIBERS));
      figures.forEach((f, i) => {
        rounds[i]?.push(f);
        log(describe(`round ${r}, ${names[i]}`, f));
      });
      for (const server of servers) await waitUntilIdle(server);
    }
    const rows = names.map((name, i): [string, Summary] => [name, summarize(rounds[i] as Round[])]);
    report.postgres = { subscribers: SUBSCRIBERS, rows: Object.fromEntries(rows), rounds };
    lines.push(...table(`${SUBSCRIBERS} subscribers, half on each of two instances`, rows), '');
  } finally {
    for (const server of servers) await server.stop();
  }
}

const table = (what: string, rows: [string, Summary][]) =>
  tableLines(
    `realtime: ${what}, ${CREATES} creates one every ${INTERVAL} ms; ms, median of ${ROUNDS} rounds (range)`,
    rows,
  );

async function measure(store: string, env: Record<string, string>, database: string): Promise<void> {
  if (store === 'SQLite') {
    log(`realtime: fan-out to ${SUBSCRIBERS} subscribers on SQLite${flags.pocketbase ? ', and PocketBase' : ''}`);
    await fanOut(database);
    if (MANY > 0) {
      log(`realtime: ${MANY} subscribers on SQLite`);
      await many(database, MANY);
    }
  } else {
    log(`realtime: two instances on PostgreSQL, ${SUBSCRIBERS} subscribers`);
    await twoInstances(env);
  }
}

async function main(): Promise<void> {
  if (flags.pocketbase) ensurePocketBase();
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'inherit' });
  // The subscribers and the writer: on the load's core, off the servers'.
  if (pins.load.length > 0) execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  log(
    `realtime: load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on the machine adds noise)`,
  );
  const started = new Date();
  try {
    await onBothStores('realtime', measure, STORES);
  } finally {
    closeWriter();
  }
  process.stdout.write(`\n${[...lines, CPU_LEGEND].join('\n')}\n`);
  const results = join(ROOT, 'bench', 'results');
  mkdirSync(results, { recursive: true });
  const file = join(results, `realtime-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ started, ...report }, null, 2)}\n`);
  log(`realtime: results written to ${file}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`realtime: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
