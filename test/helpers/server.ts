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
import { fileURLToPath } from 'node:url';
import '../../scripts/build-if-stale.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The server's entry point, as `npm start` runs it. */
export const SERVER_ENTRY = 'dist/server.js';

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
 * port and resolves once it listens.
 */
export async function startServer(
  env: Record<string, string>,
  args: string[] = [],
  { command, cwd = ROOT }: { command?: string; cwd?: string } = {},
): Promise<RunningServer> {
  const child = spawn(command ?? process.execPath, command ? args : [SERVER_ENTRY, ...args], {
    cwd,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  for (let attempt = 0; attempt < 100 && listening() < count; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (listening() < count) throw new Error(`only ${listening()} of ${count} workers listen`);
}

/** Runs the command line with `args` to completion (given `stdin`) and returns what it printed. */
export async function runCommand(args: string[], env: Record<string, string> = {}, stdin?: string) {
  const child = spawn(process.execPath, [SERVER_ENTRY, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
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
