/**
 * The load generator: Debian's wrk (C, one thread, so that it needs a fraction of the core
 * it is pinned to and reports latency in microseconds), installed when missing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './scenarios.js';

const SCRIPT = fileURLToPath(new URL('./wrk/scenario.lua', import.meta.url));
/** The script of requests whose bodies differ from one to the next (`ids: 'template'`). */
const TEMPLATE_SCRIPT = fileURLToPath(new URL('./wrk/template.lua', import.meta.url));

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Socket errors, timeouts and non-2xx/3xx answers: a sound run has none. */
  errors: number;
  /** The same, by kind (wrk's: connect, read, write, status, timeout). */
  errorKinds: Record<string, number>;
}

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Makes sure `wrk` is on PATH, installing Debian's package when it is not and we may. */
export function ensureWrk(): void {
  if (has('wrk')) return;
  if (!has('apt-get')) throw new Error('wrk is needed: install it (https://github.com/wg/wrk) and run again');
  process.stderr.write('bench: installing wrk with apt-get\n');
  const run = (args: string[]) => {
    const [command = 'sudo', ...rest] = process.getuid?.() === 0 ? args : ['sudo', '-n', ...args];
    execFileSync(command, rest, { stdio: 'inherit' });
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'wrk']);
}

/**
 * What wrk sends: a scenario's request, or any other described the same way (bench/accounts.ts);
 * or, with `ids: 'template'`, a body template filled in per request (bench/wrk/template.lua:
 * `{k}` the request's number, `{1}`… the columns of the file `rows`, if any).
 */
export interface LoadRequest extends Pick<Scenario, 'method' | 'path' | 'body' | 'headers'> {
  ids: Scenario['ids'] | 'template';
  /** With `ids: 'template'`: the file of rows whose columns fill in `{1}`… (none: `{k}` only). */
  rows?: string;
}

export interface LoadOptions {
  url: string;
  scenario: LoadRequest;
  connections: number;
  seconds: number;
  /** First id for `sequential` scenarios; last id for `random` ones. */
  idFrom: number;
  idTo: number;
  /** Command prefix that pins the load generator to a core (`taskset -c 0`), or none. */
  pin: string[];
}

/** Runs wrk for `seconds` against one scenario and returns what it measured. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { scenario: s } = options;
  const request =
    s.ids === 'template'
      ? [TEMPLATE_SCRIPT, options.url, '--', s.method, s.path, s.rows ?? '-', s.body ?? '']
      : [
          SCRIPT,
          options.url,
          '--',
          s.method,
          s.path,
          s.ids,
          String(options.idFrom),
          String(options.idTo),
          s.body ?? '-',
        ];
  const args = [
    ...options.pin,
    'wrk',
    '-t1',
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    ...request,
    ...Object.entries(s.headers ?? {}).flat(),
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(args[0] as string, args.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited with ${code}: ${out}`))));
  });
  const line = output.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`wrk printed no result:\n${output}`);
  const r = JSON.parse(line.slice('RESULT '.length)) as {
    requests: number;
    durationUs: number;
    p50Us: number;
    p99Us: number;
    maxUs: number;
    errors: Record<string, number>;
  };
  return {
    requests: r.requests,
    rps: r.requests / (r.durationUs / 1e6),
    p50Ms: r.p50Us / 1000,
    p99Ms: r.p99Us / 1000,
    maxMs: r.maxUs / 1000,
    errors: Object.values(r.errors).reduce((a, b) => a + b, 0),
    errorKinds: Object.fromEntries(Object.entries(r.errors).filter(([, n]) => n > 0)),
  };
}
