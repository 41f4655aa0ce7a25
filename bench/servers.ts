/**
 * The two servers under test, each started as its own process on a copy of the seeded
 * database, pinned to the server core, with its output sent to /dev/null (restock still
 * formats and writes every log line: production defaults, LOG_LEVEL=info).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type Target = 'restock' | 'baseline';

export interface ServerOptions {
  target: Target;
  database: string;
  /** Command prefix that pins the server to a core (`taskset -c 1`), or none. */
  pin: string[];
  /** Extra node flags, such as `--cpu-prof`. */
  nodeFlags?: string[];
}

export interface BenchServer {
  url: string;
  pid: number;
  /** The process's peak resident memory so far (VmHWM), in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

/** A free TCP port on loopback. */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  return port;
}

export async function startServer(options: ServerOptions): Promise<BenchServer> {
  const port = await freePort();
  const flags = options.nodeFlags ?? [];
  const command =
    options.target === 'restock'
      ? [process.execPath, ...flags, 'dist/server.js']
      : [process.execPath, ...flags, '--import', 'tsx', 'bench/baseline-server.ts', options.database, String(port)];
  const [file, ...args] = [...options.pin, ...command] as [string, ...string[]];
  const child = spawn(file, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${options.database}`,
      LOG_LEVEL: 'info',
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
