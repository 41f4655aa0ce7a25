/**
 * Cold starts: how long restock takes from its process's start (`node --max-semi-space-size=2
 * dist/server.js`, as `npm start` runs it) to the first 200 of a real read (GET of a product
 * by id), the CPU the processes spent until then, and their memory (RSS) once idle. SQLite
 * files of `--products` products are seeded once into a temporary folder; each setup (every
 * size, then `WORKERS=2` on the first) is started `--runs` times, the setups alternating, so
 * a busy spell of a shared machine falls on all of them. Prints the median and range of each.
 * CPU time is the steadier figure on a shared machine: a start waiting for a core adds to its
 * time, not to its CPU.
 *
 * With --pocketbase, PocketBase's binary (bench/peers/pocketbase.ts installs it on demand)
 * is started the same way, to the first 200 of its /api/health, with an empty data folder.
 *
 * Usage: node --import tsx bench/cold-start.ts [--runs N] [--products 20000,350000] [--no-workers]
 *        [--node PATH] [--pocketbase]     (also `npm run bench -- --cold-start`)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './median.js';
import { ensurePocketBase } from './peers/pocketbase.js';
import { seedDatabase } from './seed.js';

const ROOT = new URL('..', import.meta.url).pathname;
const TICK_MS = 1000 / 100; // /proc reports CPU in clock ticks of 10 ms (USER_HZ on Linux)
const IDLE_MS = 1500;

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    products: { type: 'string', default: '20000,350000' },
    'no-workers': { type: 'boolean' },
    node: { type: 'string', default: process.execPath },
    pocketbase: { type: 'boolean' },
  },
});

interface Setup {
  name: string;
  start(port: number): ChildProcess;
  /** The path whose first 200 ends the start. */
  path: string;
}

interface Start {
  ms: number;
  cpuMs: number;
  rssMb: number;
}

/** A port free now, for the next start (port 0 would leave the start's port to be read from its log). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** The process and its descendants (the workers of WORKERS=2). */
function tree(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return [pid, ...(children ? children.split(' ').flatMap((child) => tree(Number(child))) : [])];
}

function cpuMsOf(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return sum + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }, 0);
}

function rssMbOf(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return sum + Number(kb) / 1024;
  }, 0);
}

async function coldStart(setup: Setup): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child = setup.start(port);
  const exited = once(child, 'exit');
  let ms: number;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${setup.name}: the process exited with ${child.exitCode}`);
    const status = await fetch(`http://127.0.0.1:${port}${setup.path}`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) {
      ms = performance.now() - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const pid = child.pid as number;
  const cpuMs = cpuMsOf(tree(pid));
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const rssMb = rssMbOf(tree(pid));
  child.kill('SIGTERM');
  await exited;
  return { ms, cpuMs, rssMb };
}

function restock(name: string, database: string, env: Record<string, string> = {}): Setup {
  return {
    name,
    path: '/products/1/',
    start: (port) =>
      spawn(flags.node as string, ['--max-semi-space-size=2', 'dist/server.js'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: `sqlite:${database}`, PORT: String(port), LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
  };
}

const folder = mkdtempSync(join(tmpdir(), 'restock-cold-start-'));
try {
  if (!existsSync(join(ROOT, 'dist/server.js'))) throw new Error('build first: npm run build');
  const sizes = (flags.products as string).split(',').map(Number);
  const setups: Setup[] = sizes.map((products) => {
    const file = join(folder, `products-${products}.db`);
    process.stderr.write(`cold-start: seeding ${products} products\n`);
    seedDatabase(file, { users: 100, products });
    return restock(`SQLite, ${products.toLocaleString('en')} products`, file);
  });
  const first = setups[0];
  if (first && flags['no-workers'] !== true) {
    const file = join(folder, `products-${sizes[0]}.db`);
    setups.push(restock(`${first.name}, WORKERS=2`, file, { WORKERS: '2' }));
  }
  if (flags.pocketbase === true) {
    const binary = ensurePocketBase();
    const data = join(folder, 'pocketbase');
    setups.push({
      name: 'PocketBase 0.22 (GET /api/health)',
      path: '/api/health',
      start: (port) =>
        spawn(binary, ['serve', '--http', `127.0.0.1:${port}`, '--dir', data], {
          stdio: ['ignore', 'ignore', 'ignore'],
        }),
    });
  }
  const runs = Number(flags.runs);
  const results = new Map<Setup, Start[]>(setups.map((setup) => [setup, []]));
  for (let run = 0; run < runs; run++) {
    for (const setup of setups) {
      const start = await coldStart(setup);
      results.get(setup)?.push(start);
      process.stderr.write(
        `cold-start: ${setup.name}: ${start.ms.toFixed(0)} ms, CPU ${start.cpuMs} ms, ${start.rssMb.toFixed(0)} MB\n`,
      );
    }
  }
  const figure = (values: number[], unit: string) =>
    `${median(values).toFixed(0)} ${unit} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
  const version = execFileSync(flags.node as string, ['--version'], { encoding: 'utf8' }).trim();
  process.stdout.write(`\nCold starts on Node.js ${version}, ${runs} each, median (range):\n\n`);
  process.stdout.write('| setup | to the first 200 | CPU until then | RSS once idle |\n| --- | --: | --: | --: |\n');
  for (const [setup, starts] of results) {
    const ms = starts.map((s) => s.ms);
    const cpu = starts.map((s) => s.cpuMs);
    const rss = starts.map((s) => s.rssMb);
    process.stdout.write(`| ${setup.name} | ${figure(ms, 'ms')} | ${figure(cpu, 'ms')} | ${figure(rss, 'MB')} |\n`);
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
