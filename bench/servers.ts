/**
 * The servers under test, each started as its own process on a copy of the seeded
 * database, pinned to the server core, with its output sent to /dev/null (restock still
 * formats and writes every log line: production defaults, LOG_LEVEL=info, except for the
 * rate limit's budget).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The kernel's clock ticks per second (USER_HZ), in which /proc reports CPU time. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * restock from this checkout, the plain node:http baseline, restock from another checkout
 * (`--against`), a bare Fastify route over the same statement (bench/framework-floor.ts),
 * @fastify/static over a folder of files (bench/files.ts, whose `database` is that folder),
 * or a peer (`--peers`): the Express app of bench/peers/ or json-server.
 */
export type Target = 'restock' | 'baseline' | 'against' | 'fastify' | 'static' | PeerTarget;

/** The peers: other servers of the same records, not restock's code (bench/peers/). */
export const PEER_TARGETS = ['express', 'json-server'] as const;
export type PeerTarget = (typeof PEER_TARGETS)[number];

export const isPeer = (target: string): target is PeerTarget => (PEER_TARGETS as readonly string[]).includes(target);

/**
 * The reference servers, each a script started as `node [--import tsx] <script> <database>
 * <port>` (TypeScript through tsx).
 */
const REFERENCE_SCRIPTS: Partial<Record<Target, string>> = {
  baseline: 'bench/baseline-server.ts',
  fastify: 'bench/fastify-server.ts',
  static: 'bench/static-files-server.ts',
  express: 'bench/peers/express-app.mjs',
};

/** json-server's own command line, installed by bench/peers/peers.ts's ensurePeers. */
const JSON_SERVER_BIN = join(ROOT, 'bench', 'peers', 'node_modules', '.bin', 'json-server');

export interface ServerOptions {
  target: Target;
  database: string;
  /** Command prefix that pins the server to a core (`taskset -c 1`), or none. */
  pin: string[];
  /** Extra node flags, such as `--cpu-prof`. */
  nodeFlags?: string[];
  /** For `against`: the other checkout, built (its dist/server.js is run). */
  againstDir?: string;
  /** Environment variables over the production defaults below. */
  env?: Record<string, string>;
}

export interface BenchServer {
  url: string;
  pid: number;
  /** The process's peak resident memory so far (VmHWM), in MB. */
  peakRssMb(): number;
  /** CPU seconds the process has used so far (user + system), all its threads. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * The Node.js flags restock runs with in production: those of `npm start` in the
 * checkout's package.json (`node <flags> [--] dist/server.js`). Not its `--`, which ends
 * node's options: flags added after it (`--cpu-prof`) would be taken for the script.
 */
function productionFlags(dir = ROOT): string[] {
  const { scripts } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return scripts.start.split(/\s+/).filter((word) => word.startsWith('--') && word !== '--');
}

/**
 * The command prefixes that pin a server to core 1 and the load generator to core 0, so
 * that they do not compete; none when `wanted` is false, the machine has one core, or
 * taskset is missing.
 */
export function corePins(wanted = true): { server: string[]; load: string[] } {
  const can = wanted && availableParallelism() >= 2 && hasTaskset();
  return can ? { server: ['taskset', '-c', '1'], load: ['taskset', '-c', '0'] } : { server: [], load: [] };
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  return port;
}

let built = false;

export async function startServer(options: ServerOptions): Promise<BenchServer> {
  // restock runs as `npm start` runs it, from dist/: rebuilt first if src/ changed since.
  if (options.target === 'restock' && !built) {
    execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'inherit' });
    built = true;
  }
  const port = await freePort();
  const flags = options.nodeFlags ?? [];
  const script = REFERENCE_SCRIPTS[options.target];
  let cwd = options.target === 'against' ? options.againstDir : ROOT;
  let command: string[];
  if (options.target === 'json-server') {
    // Its own command line, on its db.json. It serves ./public as static files, and in
    // production mode it lists that folder at start (and fails when it is missing): an empty
    // one beside the file.
    cwd = dirname(options.database);
    mkdirSync(join(cwd, 'public'), { recursive: true });
    command = [
      process.execPath,
      ...flags,
      JSON_SERVER_BIN,
      options.database,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
    ];
  } else if (script !== undefined) {
    const tsx = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
    command = [process.execPath, ...flags, ...tsx, script, options.database, String(port)];
  } else {
    command = [
      process.execPath,
      ...productionFlags(options.target === 'against' ? options.againstDir : ROOT),
      ...flags,
      'dist/server.js',
    ];
  }
  const [file, ...args] = [...options.pin, ...command] as [string, ...string[]];
  const child = spawn(file, args, {
    cwd,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${options.database}`,
      LOG_LEVEL: 'info',
      // One client sending as fast as it can is what the rate limit stops: a budget no run
      // can spend keeps the limiter working on every request without ever refusing one.
      RATE_LIMIT_MAX: '1000000000',
      // json-server as deployed: no file watcher (in development it reads the whole file
      // back after each of its own writes) and its static files listed once. Express reads
      // NODE_ENV too (it then keeps its view cache: the app has no views).
      ...(isPeer(options.target) ? { NODE_ENV: 'production' } : {}),
      ...options.env,
    },
    stdio: ['ignore', openSync('/dev/null', 'w'), 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(url, child, () => stderr);
  const pid = child.pid as number;
  return {
    url,
    pid,
    peakRssMb() {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
      return kb / 1024;
    },
    cpuSeconds() {
      return cpuSecondsOf(pid);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU seconds process `pid` has used so far (user + system, all its threads), from /proc. */
export function cpuSecondsOf(pid: number): number {
  // Fields 14 and 15 of /proc/PID/stat, after the parenthesised command name.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

async function waitUntilAnswering(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderr()}`);
    try {
      await fetch(`${url}/healthz`);
      return;
    } catch {
      await sleep(50);
    }
  }
  child.kill('SIGKILL');
  throw new Error(`server did not answer at ${url}: ${stderr()}`);
}

/**
 * Waits (up to 10 s) until the server's CPU time stops growing: a server that answers slower
 * than it is asked (json-server's writes) still works through the requests wrk left in
 * flight, and must not do so while the next server is measured on the same core.
 */
export async function waitUntilIdle(server: BenchServer): Promise<void> {
  for (let waited = 0, last = server.cpuSeconds(); waited < 10_000; waited += 100) {
    await sleep(100);
    const now = server.cpuSeconds();
    if (now - last < 0.002) return;
    last = now;
  }
}
