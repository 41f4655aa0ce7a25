/**
 * Where a read's time goes. For each scenario (GET one user by default, `--scenarios
 * get-one,get-page`): the node:http baseline, a bare Fastify route over the same statement
 * and rendering, and restock with each service a setting turns off turned off, in rotating
 * order, CPU µs per answered request as the measure. Then (`--parts`) restock under a CPU
 * profile, each request's µs split among its parts, every per-request service by itself
 * (bench/request-parts.ts); with `--against DIR`, the same of another built checkout beside it.
 *
 * node --import tsx bench/framework-floor.ts [--scenarios get-one,get-page] [--parts] [--parts-only] [--against DIR]
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './median.js';
import { requestParts } from './request-parts.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { seedDatabase } from './seed.js';
import { type BenchServer, corePins, startServer, type Target } from './servers.js';
import { ensureWrk, runLoad } from './wrk.js';

const { values: flags } = parseArgs({
  options: {
    reps: { type: 'string' },
    duration: { type: 'string' },
    records: { type: 'string' },
    scenarios: { type: 'string' },
    // Another checkout, built: its restock runs with each service on and off too, for a before and after.
    against: { type: 'string' },
    // Each part's µs per request, from a CPU profile of restock (and of the other checkout).
    parts: { type: 'boolean' },
    'parts-only': { type: 'boolean' },
    // Only the baseline, the bare route and each build with every service on (a shorter rotation).
    plain: { type: 'boolean' },
  },
});
const reps = Number(flags.reps ?? 5);
const seconds = Number(flags.duration ?? 4);
const records = Number(flags.records ?? 10_000);
const scenarios = (flags.scenarios ?? 'get-one').split(',').map(scenarioNamed);

interface Variant {
  label: string;
  target: Target;
  env?: Record<string, string>;
  againstDir?: string;
}

/** restock with each service a setting turns off turned off, in turn, then all three. */
function restockVariants(target: Target, name: string, againstDir?: string): Variant[] {
  const off = (label: string, env: Record<string, string>) => ({ label: `${name}, ${label}`, target, env, againstDir });
  if (flags.plain) return [{ label: name, target, againstDir }];
  return [
    { label: name, target, againstDir },
    off('no access log', { LOG_LEVEL: 'warn' }),
    off('no rate limit', { RATE_LIMIT_MAX: '0' }),
    off('no load shedding', { MAX_EVENT_LOOP_DELAY: '0' }),
    off('none of the three', { LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', MAX_EVENT_LOOP_DELAY: '0' }),
  ];
}

/** The servers compared: a target and the settings it runs with. */
const VARIANTS: readonly Variant[] = [
  { label: 'node:http baseline', target: 'baseline' },
  { label: 'bare Fastify route', target: 'fastify' },
  ...restockVariants('restock', 'restock'),
  ...(flags.against ? restockVariants('against', 'before', flags.against) : []),
];

const pins = corePins();
const PROFILES = fileURLToPath(new URL('./results/profiles/', import.meta.url));

async function main(): Promise<void> {
  ensureWrk();
  const work = mkdtempSync(join(tmpdir(), 'restock-floor-'));
  try {
    const seed = join(work, 'seed.db');
    seedDatabase(seed, { users: records, products: records });
    if (!flags['parts-only']) await compareVariants(work, seed);
    if (flags.parts || flags['parts-only']) await profileParts(work, seed);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every variant under each scenario, in rotating order: CPU µs per request and req/s. */
async function compareVariants(work: string, seed: string): Promise<void> {
  const servers: BenchServer[] = [];
  try {
    for (const [i, variant] of VARIANTS.entries()) {
      const database = join(work, `${i}.db`);
      copyFileSync(seed, database);
      servers.push(await startServer({ ...variant, database, pin: pins.server, env: variant.env }));
    }
    for (const scenario of scenarios) {
      const figures = VARIANTS.map(() => ({ cpu: [] as number[], rps: [] as number[] }));
      for (let rep = 0; rep < reps; rep++) {
        for (let k = 0; k < VARIANTS.length; k++) {
          const i = (k + rep) % VARIANTS.length;
          // The bare route serves GET one alone.
          if (VARIANTS[i]?.target === 'fastify' && scenario.name !== 'get-one') continue;
          const server = servers[i] as BenchServer;
          const load = { url: server.url, scenario, connections: 50, idFrom: 1, idTo: records };
          await runLoad({ ...load, seconds: 1, pin: pins.load }); // warm-up, not counted
          const before = server.cpuSeconds();
          const result = await runLoad({ ...load, seconds, pin: pins.load });
          if (result.errors > 0) throw new Error(`${VARIANTS[i]?.label}: ${result.errors} errors`);
          figures[i]?.cpu.push(((server.cpuSeconds() - before) * 1e6) / result.requests);
          figures[i]?.rps.push(result.rps);
        }
        process.stderr.write(`${scenario.name}: repetition ${rep + 1} of ${reps} done\n`);
      }
      const baseline = median(figures[0]?.cpu ?? []);
      const lines = ['', `${scenario.title}, median of ${reps} runs of ${seconds} s, 50 connections`, ''];
      lines.push(
        `${'server'.padEnd(32)} ${'CPU µs/req'.padStart(10)} ${'÷ baseline'.padStart(10)} ${'req/s'.padStart(8)}`,
      );
      for (const [i, variant] of VARIANTS.entries()) {
        if (figures[i]?.cpu.length === 0) continue;
        const cpu = median(figures[i]?.cpu ?? []);
        const rps = median(figures[i]?.rps ?? []);
        const range = `(${Math.min(...(figures[i]?.cpu ?? [])).toFixed(0)}–${Math.max(...(figures[i]?.cpu ?? [])).toFixed(0)})`;
        lines.push(
          `${variant.label.padEnd(32)} ${cpu.toFixed(0).padStart(10)} ${(cpu / baseline).toFixed(2).padStart(10)} ${rps.toFixed(0).padStart(8)}  ${range}`,
        );
      }
      process.stdout.write(`${lines.join('\n')}\n\n`);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/**
 * restock (and the other checkout) under `--cpu-prof`, each scenario loaded for `reps` runs
 * of `seconds` after a warm-up; the samples of the loaded time, split into parts, per request.
 * The profiler's own cost is in every figure (the process's CPU per request under it is printed).
 */
async function profileParts(work: string, seed: string): Promise<void> {
  const builds: Variant[] = [{ label: 'restock', target: 'restock' }];
  if (flags.against) builds.push({ label: 'before', target: 'against', againstDir: flags.against });
  for (const scenario of scenarios) {
    // Every build at once, loaded in turns (the order rotating), so that the machine's load hits each alike.
    const runs = builds.map(() => ({ windows: [] as { from: number; to: number }[], requests: 0, cpu: 0 }));
    const servers: BenchServer[] = [];
    const dirs: string[] = [];
    try {
      for (const [i, build] of builds.entries()) {
        const database = join(work, `profiled-${scenario.name}-${i}.db`);
        copyFileSync(seed, database);
        // Kept (bench/results/ is not committed), to read with bench/profile-summary.ts.
        const dir = join(PROFILES, `floor-${scenario.name}-${build.label}-${Date.now()}`);
        dirs.push(dir);
        const nodeFlags = ['--cpu-prof', '--cpu-prof-dir', dir];
        servers.push(await startServer({ ...build, database, pin: pins.server, nodeFlags }));
      }
      const now = () => Number(process.hrtime.bigint() / 1000n);
      for (let rep = 0; rep < reps; rep++) {
        for (let k = 0; k < builds.length; k++) {
          const i = (k + rep) % builds.length;
          const server = servers[i] as BenchServer;
          const run = runs[i] as (typeof runs)[number];
          const load = { url: server.url, scenario, connections: 50, idFrom: 1, idTo: records, pin: pins.load };
          await runLoad({ ...load, seconds: 1 }); // warm-up, not counted
          const from = now();
          const before = server.cpuSeconds();
          const result = await runLoad({ ...load, seconds });
          if (result.errors > 0) throw new Error(`${builds[i]?.label}: ${result.errors} errors`);
          run.cpu += server.cpuSeconds() - before;
          run.windows.push({ from, to: now() });
          run.requests += result.requests;
        }
        process.stderr.write(`${scenario.name}: profiled repetition ${rep + 1} of ${reps} done\n`);
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
    const columns = builds.map((build, i) => {
      const run = runs[i] as (typeof runs)[number];
      const [file] = readdirSync(dirs[i] as string).filter((name) => name.endsWith('.cpuprofile'));
      if (!file) throw new Error(`${build.label}: no profile written in ${dirs[i]}`);
      process.stderr.write(`${scenario.name}: ${build.label}'s profile: ${join(dirs[i] as string, file)}\n`);
      const parts = requestParts(join(dirs[i] as string, file), run.windows, run.requests);
      return { label: build.label, cpu: (run.cpu * 1e6) / run.requests, ...parts };
    });
    const head = columns.map((c) => c.label.padStart(9)).join('');
    const lines = ['', `${scenario.title}: µs of CPU per request by part, under the profiler`, ''];
    lines.push(`${'part'.padEnd(42)}${head}`);
    const row = (label: string, values: number[]) =>
      `${label.padEnd(42)}${values.map((value) => value.toFixed(1).padStart(9)).join('')}`;
    for (const part of columns[0]?.parts.keys() ?? []) {
      lines.push(
        row(
          part,
          columns.map((c) => c.parts.get(part) ?? 0),
        ),
      );
    }
    lines.push(
      row(
        'all samples of the main thread',
        columns.map((c) => c.total),
      ),
    );
    lines.push(
      row(
        'the process (/proc), profiler included',
        columns.map((c) => c.cpu),
      ),
    );
    process.stdout.write(`${lines.join('\n')}\n\n`);
  }
}

function scenarioNamed(name: string): Scenario {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`bench/scenarios.ts has no ${name} scenario`);
  return found;
}

main().catch((error: unknown) => {
  process.stderr.write(`framework-floor: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
