import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './median.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { seedDatabase } from './seed.js';
import { type BenchServer, corePins, startServer, type Target } from './servers.js';
import { ensureWrk, runLoad } from './wrk.js';

const { values: flags } = parseArgs({
  options: {
    reps: { type: 'string' },
    duration: { type: 'string' },
    records: { type: 'string' },
    // Another checkout, built: its restock runs with each service on and off too, for a before and after.
    against: { type: 'string' },
  },
});
const reps = Number(flags.reps ?? 5);
const seconds = Number(flags.duration ?? 4);
const records = Number(flags.records ?? 10_000);

interface Variant {
  label: string;
  target: Target;
  env?: Record<string, string>;
  againstDir?: string;
}

/** restock with each service a setting turns off turned off, in turn, then all three. */
function restockVariants(target: Target, name: string, againstDir?: string): Variant[] {
  const off = (label: string, env: Record<string, string>) => ({ label: `${name}, ${label}`, target, env, againstDir });
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

const scenario = getOne();
const pins = corePins();

async function main(): Promise<void> {
  ensureWrk();
  const work = mkdtempSync(join(tmpdir(), 'restock-floor-'));
  const servers: BenchServer[] = [];
  try {
    const seed = join(work, 'seed.db');
    seedDatabase(seed, { users: records, products: records });
    for (const [i, variant] of VARIANTS.entries()) {
      const database = join(work, `${i}.db`);
      copyFileSync(seed, database);
      servers.push(await startServer({ ...variant, database, pin: pins.server, env: variant.env }));
    }
    const figures = VARIANTS.map(() => ({ cpu: [] as number[], rps: [] as number[] }));
    for (let rep = 0; rep < reps; rep++) {
      for (let k = 0; k < VARIANTS.length; k++) {
        const i = (k + rep) % VARIANTS.length;
        const server = servers[i] as BenchServer;
        const load = { url: server.url, scenario, connections: 50, idFrom: 1, idTo: records };
        const pin = pins.load;
        await runLoad({ ...load, seconds: 1, pin }); // warm-up, not counted
        const before = server.cpuSeconds();
        const result = await runLoad({ ...load, seconds, pin });
        if (result.errors > 0) throw new Error(`${VARIANTS[i]?.label}: ${result.errors} errors`);
        figures[i]?.cpu.push(((server.cpuSeconds() - before) * 1e6) / result.requests);
        figures[i]?.rps.push(result.rps);
      }
      process.stderr.write(`repetition ${rep + 1} of ${reps} done\n`);
    }
    const baseline = median(figures[0]?.cpu ?? []);
    const lines = ['', `GET one user, median of ${reps} runs of ${seconds} s, 50 connections`, ''];
    lines.push(
      `${'server'.padEnd(32)} ${'CPU µs/req'.padStart(10)} ${'÷ baseline'.padStart(10)} ${'req/s'.padStart(8)}`,
    );
    for (const [i, variant] of VARIANTS.entries()) {
      const cpu = median(figures[i]?.cpu ?? []);
      const rps = median(figures[i]?.rps ?? []);
      lines.push(
        `${variant.label.padEnd(32)} ${cpu.toFixed(0).padStart(10)} ${(cpu / baseline).toFixed(2).padStart(10)} ${rps.toFixed(0).padStart(8)}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

function getOne(): Scenario {
  const found = SCENARIOS.find((s) => s.name === 'get-one');
  if (!found) throw new Error('bench/scenarios.ts has no get-one scenario');
  return found;
}

main().catch((error: unknown) => {
  process.stderr.write(`framework-floor: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
