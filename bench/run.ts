/**
 * `npm run bench`: restock against the plain node:http baseline (and with `--peers` an
 * Express app and json-server), side by side, over loopback. See bench/README.md for what it
 * measures and how to read the output.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runAccountScenarios } from './accounts.js';
import { accountReportLines } from './accounts-report.js';
import { batchReportLines, runBatchScenarios } from './batches.js';
import { median } from './median.js';
import { ensurePeers, seedJsonServerData, seedPeerDatabase } from './peers/peers.js';
import {
  ACCOUNT_SCENARIOS,
  BATCH_SCENARIOS,
  FILTERED_PAGE_CPU_TARGET,
  PEAK_RSS_TARGET_MB,
  requestFor,
  SCENARIOS,
  type Scenario,
  TUNNEL_TARGET,
} from './scenarios.js';
import { type SeedCounts, seedDatabase } from './seed.js';
import {
  type BenchServer,
  corePins,
  isPeer,
  PEER_TARGETS,
  type PeerTarget,
  startServer,
  type Target,
  waitUntilIdle,
} from './servers.js';
import { ensureWrk, type LoadResult, runLoad } from './wrk.js';

const HELP = `npm run bench -- [options]

  --quick               two repetitions of 1 s after 1 s of warm-up, no large-collection run
  --reps N              runs of each scenario per target, alternating targets (default 5)
  --duration S          seconds measured per run (default 3)
  --warmup S            seconds of load before each measured run, not counted (default 2)
  --connections N       concurrent connections (default 50)
  --records N           records of each kind (default 10000)
  --big-records N       records of each kind for the peak-memory run; 0 skips it (default 1000000)
  --scenarios a,b       only these (${SCENARIOS.map((s) => s.name).join(', ')}),
                        and the accounts and rules scenarios, restock alone over schemas/shop
                        (${ACCOUNT_SCENARIOS.map((s) => s.name).join(', ')}),
                        and the batch scenarios, restock alone over schemas/shop
                        (${BATCH_SCENARIOS.map((s) => s.name).join(', ')})
  --stores a,b          stores of the accounts scenarios' pages and of the batch scenarios
                        (default sqlite,postgres; PostgreSQL on TEST_POSTGRES_URL, skipped
                        when it does not answer)
  --owner-orders N      the shopper's orders in the accounts scenarios, as many more another's
                        (default 101000, --quick 10100): the deep page is page 1,000, or with
                        fewer orders the deepest that has another page after it
  --sign-ins N          sign-ins measured at each hash cost (default 40, --quick 10)
  --targets a,b         only these servers (restock, baseline, express, json-server)
  --peers               add the peers: the Express app of bench/peers/ and json-server, each
                        on the same records (installed into bench/peers/node_modules when
                        missing); the summary adds restock ÷ each peer
  --against DIR         compare restock with the restock of another checkout in DIR (built
                        there, for example an earlier commit) instead of with the baseline;
                        the accounts scenarios then run only when --scenarios names them
  --env KEY=VALUE       an environment variable for restock (repeatable), e.g. LOG_LEVEL=warn
                        to see what request logging costs; the default is production's
  --cpu-prof            profile restock (node --cpu-prof) into bench/results/profiles/
  --no-pin              do not pin the server and wrk to different cores
  --no-lists            skip bench/list-pages.ts (list pages with 1,000 and 1,000,000 records),
                        which the default run ends with (--quick, --scenarios and --against skip it)
  --webhooks            end with bench/webhooks.ts (about 4 minutes): the lag from commit to
                        delivery at 1,000 writes/s with 5 webhooks, and the writes' throughput
                        with 5 webhooks against none, on --stores (--scenarios webhooks runs
                        it alone)
  --realtime            end with bench/realtime.ts (2 to 3.5 minutes): the delay from a create's
                        POST to its change-feed event at 100 and 1,000 subscribers on SQLite and
                        at two instances on PostgreSQL, on --stores; with --peers, PocketBase
                        beside restock (--scenarios realtime runs it alone)
  --cold-start          end with bench/cold-start.ts (about 2 minutes): the time from a cold start
                        to the first 200 of a read, its CPU and the idle RSS, on SQLite files of
                        20,000 and 350,000 products and with WORKERS=2
`;

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    reps: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    records: { type: 'string' },
    'big-records': { type: 'string' },
    scenarios: { type: 'string' },
    targets: { type: 'string' },
    against: { type: 'string' },
    env: { type: 'string', multiple: true },
    'cpu-prof': { type: 'boolean' },
    'no-pin': { type: 'boolean' },
    'no-lists': { type: 'boolean' },
    webhooks: { type: 'boolean' },
    realtime: { type: 'boolean' },
    'cold-start': { type: 'boolean' },
    peers: { type: 'boolean' },
    stores: { type: 'string' },
    'owner-orders': { type: 'string' },
    'sign-ins': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (flags.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const quick = flags.quick === true;
const num = (raw: string | undefined, fallback: number) => (raw === undefined ? fallback : Number(raw));
const options = {
  reps: num(flags.reps, quick ? 2 : 5),
  duration: num(flags.duration, quick ? 1 : 3),
  warmup: num(flags.warmup, quick ? 1 : 2),
  connections: num(flags.connections, 50),
  records: num(flags.records, 10_000),
  bigRecords: num(flags['big-records'], quick ? 0 : 1_000_000),
  // The accounts and batch scenarios measure restock against itself: with --against, only when named.
  scenarios:
    flags.scenarios?.split(',') ??
    [...SCENARIOS, ...(flags.against ? [] : [...ACCOUNT_SCENARIOS, ...BATCH_SCENARIOS])].map(
      (s: { name: string }) => s.name,
    ),
  stores: flags.stores?.split(',') ?? ['sqlite', 'postgres'],
  ownOrders: num(flags['owner-orders'], quick ? 10_100 : 101_000),
  signIns: num(flags['sign-ins'], quick ? 10 : 40),
  targets: targetsOf(flags.targets?.split(',') ?? ['restock', flags.against ? 'against' : 'baseline']),
  against: flags.against,
  env: Object.fromEntries((flags.env ?? []).map((pair) => [pair.split('=', 1)[0], pair.slice(pair.indexOf('=') + 1)])),
  cpuProf: flags['cpu-prof'] === true,
};
/** The servers of `--targets` (or the default pair), and with `--peers` the peers after them. */
function targetsOf(named: string[]): Target[] {
  const peers = flags.peers ? PEER_TARGETS.filter((peer) => !named.includes(peer)) : [];
  return [...named, ...peers] as Target[];
}
const peers = PEER_TARGETS.filter((peer) => options.targets.includes(peer));

/** What restock is compared with: the baseline, or another checkout's restock. */
const REFERENCE: Target = options.against ? 'against' : 'baseline';
const scenarios = SCENARIOS.filter((s) => options.scenarios.includes(s.name));

const ROOT = new URL('..', import.meta.url).pathname;
const RESULTS = join(ROOT, 'bench', 'results');
const pins = corePins(flags['no-pin'] !== true);
const canPin = pins.server.length > 0;
const serverPin = pins.server;
const loadPin = pins.load;

/** DELETE takes each id once: enough records for the fastest server imaginable here. */
const deletePool = (seconds: number) => 40_000 * seconds;
/** The same for json-server, which deleted 20 to 50 a second in smoke runs here (`--records 2000`). */
const JSON_SERVER_DELETES_PER_SECOND = 1000;

interface Run extends LoadResult {
  scenario: string;
  target: Target;
  rep: number;
  peakRssMb: number;
  /** Server CPU time per answered request: steadier than req/s on a busy machine. */
  cpuUsPerRequest: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Scenarios that share a pair of servers and a database: no one's writes change another's figures. */
const SESSIONS: readonly (readonly string[])[] = [
  ['get-one', 'get-page', 'get-filtered'],
  ['post'],
  ['put', 'put-tunnelled'],
  ['delete'],
];

/**
 * One session: a restock and a baseline process side by side (idle while the other is
 * loaded), each on its own copy of the seeded database. After a warm-up, each repetition
 * runs every scenario once per target, the targets' order alternating, so that a change in
 * the machine's load between two measurements hits both targets alike.
 */
async function runSession(session: readonly Scenario[], seed: Seed, work: string, runs: Run[]): Promise<void> {
  const servers = new Map<Target, BenchServer>();
  /** The next unused id of each server's DELETE scenario. */
  const nextId = new Map<Target, number>();
  try {
    for (const target of options.targets) {
      const from = target === 'express' ? seed.express : target === 'json-server' ? seed.jsonServer : seed.store;
      if (from === undefined) throw new Error(`no seed for ${target}`);
      const database = join(work, target === 'json-server' ? 'json-server.json' : `${target}.db`);
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true });
      copyFileSync(from, database);
      const nodeFlags = profileFlags(target);
      servers.set(
        target,
        await startServer({
          target,
          database,
          pin: serverPin,
          nodeFlags,
          againstDir: options.against,
          // --env is for restock (and the restock it is compared with), never the baseline or a peer.
          ...(target === 'restock' || target === 'against' ? { env: options.env } : {}),
        }),
      );
      nextId.set(target, 1);
    }
    const load = async (scenario: Scenario, target: Target, seconds: number) => {
      const server = servers.get(target) as BenchServer;
      const cpuBefore = server.cpuSeconds();
      const result = await runLoad({
        url: server.url,
        scenario: requestFor(scenario, target) as Scenario,
        connections: options.connections,
        seconds,
        idFrom: scenario.ids === 'sequential' ? (nextId.get(target) as number) : 1,
        idTo: options.records,
        pin: loadPin,
      });
      const cpuUs = (server.cpuSeconds() - cpuBefore) * 1e6;
      // Every id a finished or cut-off request may have taken is spent.
      nextId.set(target, (nextId.get(target) as number) + result.requests + options.connections);
      await waitUntilIdle(server);
      return { ...result, cpuUsPerRequest: result.requests > 0 ? cpuUs / result.requests : Number.NaN };
    };
    /** The targets that can be asked a scenario (json-server has no method override), in the repetition's order. */
    const asked = (scenario: Scenario, rep: number) => {
      const targets = options.targets.filter((target) => requestFor(scenario, target) !== undefined);
      return rep % 2 === 1 ? targets : targets.reverse();
    };
    if (options.warmup > 0) {
      for (const scenario of session)
        for (const target of asked(scenario, 1)) await load(scenario, target, options.warmup);
    }
    const mine: Run[] = [];
    for (let rep = 1; rep <= options.reps; rep++) {
      for (const scenario of session) {
        for (const target of asked(scenario, rep)) {
          const result = await load(scenario, target, options.duration);
          const run = { scenario: scenario.name, target, rep, ...result, peakRssMb: 0 };
          mine.push(run);
          log(`  ${describeRun(run)}`);
        }
      }
    }
    for (const [target, server] of servers) {
      const peak = server.peakRssMb();
      for (const run of mine) if (run.target === target) run.peakRssMb = peak;
      log(`  ${target} peak RSS over the session: ${peak.toFixed(0)} MB`);
    }
    runs.push(...mine);
  } finally {
    for (const server of servers.values()) await server.stop();
  }
}

/** A session's seeded files: restock's (which the baseline shares), and the peers' when they run. */
interface Seed {
  store: string;
  express?: string;
  jsonServer?: string;
}

/** Seeds `name` in `work` for every target that runs, each holding the same records (ids 1 to n). */
function seedAll(work: string, name: string, counts: SeedCounts, jsonServerCounts: SeedCounts): Seed {
  const seed: Seed = { store: join(work, `${name}.db`) };
  seedDatabase(seed.store, counts);
  if (peers.includes('express')) {
    seed.express = join(work, `${name}-express.db`);
    seedPeerDatabase(seed.express, counts);
  }
  if (peers.includes('json-server')) {
    seed.jsonServer = join(work, `${name}-json-server.json`);
    seedJsonServerData(seed.jsonServer, jsonServerCounts);
  }
  return seed;
}

async function main(): Promise<void> {
  ensureWrk();
  if (peers.length > 0) ensurePeers();
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(RESULTS, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'restock-bench-'));
  const started = new Date();
  log(`bench: ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, node ${process.version}`);
  log(
    `bench: load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on the machine adds noise)`,
  );
  log(canPin ? 'bench: servers on core 1, wrk on core 0' : 'bench: not pinned to cores');

  try {
    const n = options.records;
    if (scenarios.length > 0)
      log(`bench: seeding ${n} users and ${n} products${peers.length ? ` for restock and ${peers.join(', ')}` : ''}`);
    const base = { users: n, products: n };
    const seconds = options.warmup + options.reps * options.duration;
    const deletes = { users: n, products: Math.max(n, deletePool(seconds)) };
    // json-server rewrites its whole file on every write, so it deletes tens of records a
    // second, not tens of thousands: a pool sized for the others would only make its file,
    // and each of its writes, many times larger.
    const jsonServerDeletes = { users: n, products: n + JSON_SERVER_DELETES_PER_SECOND * seconds };
    const seeds =
      scenarios.length === 0
        ? undefined
        : { base: seedAll(work, 'base', base, base), deletes: seedAll(work, 'deletes', deletes, jsonServerDeletes) };

    const runs: Run[] = [];
    for (const names of SESSIONS) {
      const session = scenarios.filter((s) => names.includes(s.name));
      if (session.length === 0) continue;
      const seed = session.some((s) => s.ids === 'sequential') ? seeds?.deletes : seeds?.base;
      await runSession(session, seed as Seed, work, runs);
    }
    const summary = summarize(runs);
    const restock = options.targets.includes('restock');
    const big = options.bigRecords > 0 && scenarios.length > 0 && restock ? await bigRun(work) : undefined;
    const accounts = restock ? await runAccountScenarios({ ...options, pins, work, log }) : undefined;
    const batches = restock
      ? await runBatchScenarios({ ...options, pins, work, log, nodeFlags: profileFlags('restock') })
      : undefined;
    const report = {
      started: started.toISOString(),
      machine: {
        cpu: cpus()[0]?.model,
        cores: availableParallelism(),
        node: process.version,
        kernel: release(),
        loadAverageAtStart: loadavg(),
        pinned: canPin,
      },
      options,
      summary,
      big,
      runs,
      accounts,
      batches,
    };
    if (scenarios.length > 0) printReport(summary, big);
    if (accounts) process.stdout.write(`${accountReportLines(accounts).join('\n')}\n\n`);
    if (batches) process.stdout.write(`${batchReportLines(batches).join('\n')}\n\n`);
    const file = join(RESULTS, `bench-${started.toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`bench: results written to ${file}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // The other question of speed: does a page cost more in a bigger collection (issue 4)?
  const partial = quick || flags.scenarios !== undefined || flags.against !== undefined;
  if (flags['no-lists'] !== true && !partial) {
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/list-pages.ts'], { cwd: ROOT, stdio: 'inherit' });
  }
  // Webhooks' lag and what they cost writes: minutes more, so only when asked.
  if (flags.webhooks === true || options.scenarios.includes('webhooks')) {
    const stores = flags.stores ? ['--stores', flags.stores] : [];
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/webhooks.ts', ...stores], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
  // The change feed's delay to its subscribers: over two minutes more, so only when asked.
  if (flags.realtime === true || options.scenarios.includes('realtime')) {
    const args = [...(flags.stores ? ['--stores', flags.stores] : []), ...(flags.peers ? ['--pocketbase'] : [])];
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/realtime.ts', ...args], { cwd: ROOT, stdio: 'inherit' });
  }
  // How long a start takes and what an idle server holds: only when asked.
  if (flags['cold-start'] === true) {
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/cold-start.ts'], { cwd: ROOT, stdio: 'inherit' });
  }
}

function profileFlags(target: Target): string[] {
  if (!options.cpuProf || target !== 'restock') return [];
  return ['--cpu-prof', '--cpu-prof-dir', join(RESULTS, 'profiles')];
}

function describeRun(r: Run): string {
  const errors = r.errors > 0 ? `  ${r.errors} ERRORS ${JSON.stringify(r.errorKinds)}` : '';
  return (
    `${r.scenario.padEnd(14)} ${r.target.padEnd(9)} rep ${r.rep}: ${r.rps.toFixed(0).padStart(6)} req/s ` +
    `p50 ${r.p50Ms.toFixed(2)} ms p99 ${r.p99Ms.toFixed(2)} ms, ${r.cpuUsPerRequest.toFixed(0)} µs CPU/req${errors}`
  );
}

interface TargetFigures {
  rps: number;
  cpuUsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

interface ScenarioSummary {
  scenario: string;
  title: string;
  restock?: TargetFigures;
  baseline?: TargetFigures;
  /** Median over repetitions of restock ÷ baseline req/s, each pair measured back to back. */
  ratio?: number;
  ratioRange?: [number, number];
  target: number;
  met?: boolean;
  /** With `--peers`: every target's figures (restock and the baseline again among them). */
  targets?: Partial<Record<Target, TargetFigures>>;
  /** With `--peers`: restock ÷ each peer, as `ratio` is restock ÷ the baseline. */
  peers?: Partial<Record<PeerTarget, PeerComparison>>;
}

interface PeerComparison {
  /** False where the peer cannot be asked the scenario (json-server has no method override). */
  asked: boolean;
  /** Median over repetitions of restock ÷ the peer's req/s. */
  ratio?: number;
  ratioRange?: [number, number];
  /** The Express app's target; json-server has none. */
  target?: number;
  met?: boolean;
}

function summarize(runs: readonly Run[]) {
  const figures = (scenario: string, target: Target): TargetFigures | undefined => {
    const mine = runs.filter((r) => r.scenario === scenario && r.target === target);
    if (mine.length === 0) return undefined;
    return {
      rps: median(mine.map((r) => r.rps)),
      cpuUsPerRequest: median(mine.map((r) => r.cpuUsPerRequest)),
      p50Ms: median(mine.map((r) => r.p50Ms)),
      p99Ms: median(mine.map((r) => r.p99Ms)),
      errors: mine.reduce((sum, r) => sum + r.errors, 0),
    };
  };
  const pairRatios = (a: (r: Run) => boolean, b: (r: Run) => boolean, of: (r: Run) => number = (r) => r.rps) => {
    const ratios: number[] = [];
    for (let rep = 1; rep <= options.reps; rep++) {
      const x = runs.find((r) => r.rep === rep && a(r));
      const y = runs.find((r) => r.rep === rep && b(r));
      if (x && y) ratios.push(of(x) / of(y));
    }
    return ratios;
  };
  const scenarioSummaries: ScenarioSummary[] = scenarios.map((s) => {
    const ratios = pairRatios(
      (r) => r.scenario === s.name && r.target === 'restock',
      (r) => r.scenario === s.name && r.target === REFERENCE,
    );
    const ratio = ratios.length ? median(ratios) : undefined;
    const summary: ScenarioSummary = {
      scenario: s.name,
      title: s.title,
      restock: figures(s.name, 'restock'),
      baseline: figures(s.name, REFERENCE),
      ratio,
      ratioRange: ratios.length ? [Math.min(...ratios), Math.max(...ratios)] : undefined,
      target: s.target,
      met: ratio === undefined ? undefined : ratio >= s.target,
    };
    if (peers.length === 0) return summary;
    summary.targets = Object.fromEntries(options.targets.map((target) => [target, figures(s.name, target)]));
    summary.peers = Object.fromEntries(
      peers.map((peer): [PeerTarget, PeerComparison] => {
        const byRep = pairRatios(
          (r) => r.scenario === s.name && r.target === 'restock',
          (r) => r.scenario === s.name && r.target === peer,
        );
        const peerRatio = byRep.length ? median(byRep) : undefined;
        const target = peer === 'express' ? s.expressTarget : undefined;
        return [
          peer,
          {
            asked: requestFor(s, peer) !== undefined,
            ratio: peerRatio,
            ratioRange: byRep.length ? [Math.min(...byRep), Math.max(...byRep)] : undefined,
            target,
            met: peerRatio === undefined || target === undefined ? undefined : peerRatio >= target,
          },
        ];
      }),
    );
    return summary;
  });
  const tunnelled = (r: Run) => r.scenario === 'put-tunnelled' && r.target === 'restock';
  const direct = (r: Run) => r.scenario === 'put' && r.target === 'restock';
  const tunnelRatios = pairRatios(tunnelled, direct);
  const tunnel = tunnelRatios.length
    ? {
        ratio: median(tunnelRatios),
        target: TUNNEL_TARGET,
        met: median(tunnelRatios) >= TUNNEL_TARGET,
        /** The same comparison in server CPU time per request (below 1: the tunnel costs less). */
        cpuRatio: median(pairRatios(tunnelled, direct, (r) => r.cpuUsPerRequest)),
      }
    : undefined;
  // What a filter adds to a page: restock's CPU per filtered page over its CPU per plain one.
  const filteredRatios = pairRatios(
    (r) => r.scenario === 'get-filtered' && r.target === 'restock',
    (r) => r.scenario === 'get-page' && r.target === 'restock',
    (r) => r.cpuUsPerRequest,
  );
  const filteredPage = filteredRatios.length
    ? { cpuRatio: median(filteredRatios), target: FILTERED_PAGE_CPU_TARGET }
    : undefined;
  const restockRss = runs.filter((r) => r.target === 'restock').map((r) => r.peakRssMb);
  return {
    scenarios: scenarioSummaries,
    tunnelledVsDirectPut: tunnel,
    filteredVsPlainPage: filteredPage,
    restockPeakRssMb: restockRss.length ? Math.max(...restockRss) : undefined,
  };
}

/**
 * The large-collection run: one restock process over `bigRecords` records of each kind,
 * every scenario in turn, and the process's peak resident memory over all of it.
 */
async function bigRun(work: string) {
  const n = options.bigRecords;
  const seconds = options.warmup + options.duration;
  const database = join(work, 'big.db');
  log(`bench: seeding ${n} users and ${n} products (plus ${deletePool(seconds)} to delete) for the memory run`);
  seedDatabase(database, { users: n, products: n + deletePool(seconds) });
  const server = await startServer({ target: 'restock', database, pin: serverPin, env: options.env });
  const rps: Record<string, number> = {};
  let deleteFrom = n + 1;
  try {
    for (const scenario of scenarios) {
      const result = await runLoad({
        url: server.url,
        scenario,
        connections: options.connections,
        seconds,
        idFrom: scenario.ids === 'sequential' ? deleteFrom : 1,
        idTo: n,
        pin: loadPin,
      });
      // Only DELETE uses up ids (each once); the other scenarios leave them for it.
      if (scenario.ids === 'sequential') deleteFrom += result.requests + options.connections;
      rps[scenario.name] = result.rps;
      const errors = result.errors > 0 ? `, ${result.errors} ERRORS ${JSON.stringify(result.errorKinds)}` : '';
      log(`  big ${scenario.name.padEnd(14)} ${result.rps.toFixed(0).padStart(6)} req/s${errors}`);
    }
    const peak = server.peakRssMb();
    return { records: n, peakRssMb: peak, target: PEAK_RSS_TARGET_MB, met: peak <= PEAK_RSS_TARGET_MB, rps };
  } finally {
    await server.stop();
  }
}

function printReport(summary: ReturnType<typeof summarize>, big: Awaited<ReturnType<typeof bigRun>> | undefined) {
  const cell = (f: TargetFigures | undefined) =>
    f
      ? `${f.rps.toFixed(0).padStart(7)} ${f.p50Ms.toFixed(2).padStart(6)} ${f.p99Ms.toFixed(2).padStart(7)}`
      : `${'-'.padStart(7)} ${'-'.padStart(6)} ${'-'.padStart(7)}`;
  const verdict = (met: boolean | undefined) => (met === undefined ? '' : met ? 'met' : 'NOT MET');
  const lines = [
    '',
    `${''.padEnd(28)} ${'restock'.padEnd(22)} ${(options.against ? `restock in ${options.against}` : 'baseline').padEnd(22)}`,
    `${'scenario'.padEnd(28)} ${'req/s  p50 ms  p99 ms'.padStart(22)} ${'req/s  p50 ms  p99 ms'.padStart(22)}  ratio  target`,
  ];
  for (const s of summary.scenarios) {
    const ratio = s.ratio === undefined ? '-' : `${s.ratio.toFixed(2)}x`;
    const errors = (s.restock?.errors ?? 0) + (s.baseline?.errors ?? 0);
    lines.push(
      `${s.title.padEnd(28)} ${cell(s.restock)} ${cell(s.baseline)}  ${ratio.padStart(5)}  >= ${s.target}x ${verdict(s.met)}` +
        (errors ? `  (${errors} errors!)` : ''),
    );
  }
  lines.push('', 'server CPU time per request (steadier than req/s when the machine is shared):');
  for (const s of summary.scenarios) {
    const us = (f: TargetFigures | undefined) => (f ? `${f.cpuUsPerRequest.toFixed(0)} µs` : '-');
    const ratio =
      s.restock && s.baseline ? ` (${(s.restock.cpuUsPerRequest / s.baseline.cpuUsPerRequest).toFixed(2)}x)` : '';
    lines.push(
      `  ${s.title.padEnd(28)} restock ${us(s.restock).padStart(7)}   ${REFERENCE} ${us(s.baseline).padStart(7)}${ratio}`,
    );
  }
  lines.push('');
  if (peers.length > 0) lines.push(...peerTable(summary.scenarios), '');
  const t = summary.tunnelledVsDirectPut;
  if (t) {
    lines.push(
      `tunnelled PUT / direct PUT: ${t.ratio.toFixed(3)} of the req/s (target >= ${t.target}) ${verdict(t.met)}; ` +
        `${t.cpuRatio.toFixed(3)} of the CPU time per request`,
    );
  }
  const f = summary.filteredVsPlainPage;
  if (f) {
    lines.push(
      `filtered page / plain page: ${f.cpuRatio.toFixed(2)} of the CPU time per request ` +
        `(target <= ${f.target}) ${verdict(f.cpuRatio <= f.target)}`,
    );
  }
  if (summary.restockPeakRssMb !== undefined) {
    lines.push(`restock peak RSS, ${options.records} records: ${summary.restockPeakRssMb.toFixed(0)} MB`);
  }
  if (big) {
    lines.push(
      `restock peak RSS, ${big.records} records of each kind, all scenarios: ${big.peakRssMb.toFixed(0)} MB ` +
        `(target <= ${big.target} MB) ${verdict(big.met)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/**
 * The peers' table: per scenario, each target's req/s, p99 and server CPU time per request,
 * and restock ÷ that target (the median of the repetitions' ratios) with its target.
 */
function peerTable(summaries: readonly ScenarioSummary[]): string[] {
  const verdict = (met: boolean | undefined) => (met === undefined ? '' : met ? ' met' : ' NOT MET');
  const lines = [
    "beside the peers: restock ÷ a server is the median of the repetitions' ratios of req/s",
    `${'scenario'.padEnd(28)} ${'server'.padEnd(11)} ${'req/s'.padStart(7)} ${'p99 ms'.padStart(8)} ` +
      `${'CPU µs'.padStart(7)} ${'restock ÷'.padStart(9)}  target`,
  ];
  for (const s of summaries) {
    options.targets.forEach((target, i) => {
      const f = s.targets?.[target];
      const figures = f
        ? `${f.rps.toFixed(0).padStart(7)} ${f.p99Ms.toFixed(2).padStart(8)} ${f.cpuUsPerRequest.toFixed(0).padStart(7)}`
        : `${'-'.padStart(7)} ${'-'.padStart(8)} ${'-'.padStart(7)}`;
      const peer = isPeer(target) ? s.peers?.[target] : undefined;
      const ratio = target === REFERENCE ? s.ratio : peer?.ratio;
      let goal = '';
      if (target === REFERENCE) goal = `>= ${s.target}x${verdict(s.met)}`;
      else if (peer?.asked === false) goal = 'not asked: it cannot be';
      else if (f && f.rps === 0) goal = 'no request finished within a run';
      else if (peer?.target !== undefined) goal = `>= ${peer.target}x${verdict(peer.met)}`;
      const errors = f?.errors ? `  (${f.errors} errors!)` : '';
      const line =
        `${(i === 0 ? s.title : '').padEnd(28)} ${target.padEnd(11)} ${figures} ` +
        `${(ratio === undefined || !Number.isFinite(ratio) ? '' : `${ratio.toFixed(2)}x`).padStart(9)}  ${goal}${errors}`;
      lines.push(line.trimEnd());
    });
  }
  return lines;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
