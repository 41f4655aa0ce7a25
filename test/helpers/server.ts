/**
 * Runs restock as a real child process, the way an operator does (`npm start` runs
 * dist/server.js), and talks to it over real HTTP.
 *
 * The processes run the compiled server: through tsx each start cost a second more CPU,
 * and the suite starts hundreds. `npm test` compiles dist/ before any test file runs; a
 * file run alone compiles it here when src/ is newer (scripts/build-if-stale.mjs).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import '../../scripts/build-if-stale.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The server's entry point, as `npm start` runs it. */
export const SERVER_ENTRY = 'dist/server.js';

/**
 * Every process started here that still runs. A test that fails before it stops its servers
 * would leave them holding this file's process open, and the whole run waiting for it:
 * once the file's tests are done, whatever is left is killed.
 */
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

function tracked(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export interface RunningServer {
  process: ChildProcess;
  url: string;
  /** Every line the process printed to stdout so far. */
  output: string[];
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the server (or `command`, such as an installed `restock`, in `cwd`) on an ephemeral
 * port and resolves once it listens. Load shedding is off unless `env` sets
 * MAX_EVENT_LOOP_DELAY: it answers by how busy the machine is (a test suite beside it, on a
 * loaded CI machine), and tests where it is the subject turn it on.
 */
export async function startServer(
  env: Record<string, string>,
  args: string[] = [],
  { command, cwd = ROOT }: { command?: string; cwd?: string } = {},
): Promise<RunningServer> {
  const child = tracked(
    spawn(command ?? process.execPath, command ? args : [SERVER_ENTRY, ...args], {
      cwd,
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', MAX_EVENT_LOOP_DELAY: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const output: string[] = [];
  const errors: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        output.push(line);
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (match?.[1]) resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${errors.join('')}`)));
  });
  return {
    process: child,
    url,
    output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = await exited;
      return code as number | null;
    },
  };
}

/** Resolves once `count` workers of a `--workers` server listen (startServer returns at the first). */
export async function waitForWorkers(server: RunningServer, count: number): Promise<void> {
  const listening = () => server.output.filter((line) => line.includes('Server listening')).length;
  const stdout = server.process.stdout;
  while (listening() < count) {
    if (!stdout || server.process.exitCode !== null) throw new Error(`only ${listening()} of ${count} workers listen`);
    // startServer's own listener, registered first, has taken the chunk's lines by now.
    await Promise.race([once(stdout, 'data'), once(server.process, 'exit')]);
  }
}

/** Runs the command line with `args` to completion (given `stdin`) and returns what it printed. */
export async function runCommand(args: string[], env: Record<string, string> = {}, stdin?: string) {
  const child = tracked(
    spawn(process.execPath, [SERVER_ENTRY, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    }),
  );
  child.stdin?.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}
