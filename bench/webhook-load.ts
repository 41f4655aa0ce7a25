/**
 * The parts of bench/webhooks.ts that talk to processes: the receivers' process
 * (bench/webhook-receivers.ts), a second PostgreSQL database, webhooks made and products
 * seeded through the API, and the paced writer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One delivery as a receiver noted it (times in ms since the epoch, one machine's clock). */
export interface Sample {
  key: string;
  updatedAt: number;
  timestamp: number;
  arrival: number;
}

export interface Receivers {
  urls: string[];
  /** Deliveries received so far, by all of them. */
  count(): Promise<number>;
  /** The deliveries noted since the last take. */
  take(): Promise<Sample[]>;
  stop(): void;
}

/** Starts `count` receivers in a process of their own, pinned by `pin` (`taskset -c 0`). */
export async function startReceivers(count: number, pin: string[]): Promise<Receivers> {
  const script = ['--import', 'tsx', 'bench/webhook-receivers.ts', String(count)];
  const [file, ...args] = [...pin, process.execPath, ...script] as [string, ...string[]];
  const child = spawn(file, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ ports }] = (await once(child, 'message')) as [{ ports: number[] }];
  const ask = async <T>(what: string): Promise<T> => {
    const answer = once(child, 'message') as Promise<[T]>;
    child.send(what);
    return (await answer)[0];
  };
  return {
    urls: ports.map((port) => `http://127.0.0.1:${port}/`),
    count: async () => (await ask<{ count: number }>('count')).count,
    take: async () => samplesOf((await ask<{ samples: number[] }>('take')).samples),
    stop: () => stopChild(child),
  };
}

/** Four numbers a delivery: id, updatedAt, timestamp, arrival (bench/webhook-receivers.ts). */
function samplesOf(flat: readonly number[]): Sample[] {
  const samples: Sample[] = [];
  for (let i = 0; i + 3 < flat.length; i += 4) {
    const [id, updatedAt, timestamp, arrival] = flat.slice(i, i + 4) as [number, number, number, number];
    samples.push({ key: `${id}:${updatedAt}`, updatedAt, timestamp, arrival });
  }
  return samples;
}

function stopChild(child: ChildProcess): void {
  if (child.connected) child.disconnect();
  if (child.exitCode === null) child.kill('SIGTERM');
}

/** A second database beside `url` on PostgreSQL (the server without webhooks); its url and how to drop it. */
export async function secondDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client(url);
  await admin.connect();
  const name = `${new URL(url).pathname.slice(1)}_none`;
  await admin.query(`CREATE DATABASE ${name}`);
  const other = new URL(url);
  other.pathname = `/${name}`;
  return {
    url: other.href,
    drop: async () => {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 50 });

export function closeAgent(): void {
  agent.destroy();
}

/** A request's answer: status and parsed JSON body. */
function send(url: string, method: string, body: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
    const req = request(url, { method, agent, headers }, (response) => {
      let answer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        answer += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: answer ? JSON.parse(answer) : null }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** Makes a webhook on the products for each url (`POST /webhooks/`; the server's loopback is open). */
export async function makeWebhooks(base: string, urls: readonly string[]): Promise<void> {
  for (const url of urls) {
    const { status, json } = await send(`${base}/webhooks/`, 'POST', { url, collections: ['products'] });
    if (status !== 201) throw new Error(`POST /webhooks/ answered ${status}: ${JSON.stringify(json)}`);
  }
}

/** Creates `n` products through the bulk create, 100 a request; returns their ids. */
export async function seedProducts(base: string, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let made = 0; made < n; made += 100) {
    const batch = Array.from({ length: Math.min(100, n - made) }, (_, i) => ({ name: `seed ${made + i}`, price: i }));
    const { status, json } = await send(`${base}/products/`, 'POST', batch);
    if (status !== 201 && status !== 200) throw new Error(`bulk create answered ${status}: ${JSON.stringify(json)}`);
    ids.push(...(json as { id: number }[]).map((record) => record.id));
  }
  return ids;
}

export interface PacedRun {
  /** Writes answered 2xx, as `id:updatedAt` (ms): what the receivers should hear of. */
  written: string[];
  errors: number;
  /** Writes a second reached (answered over the run's wall time). */
  rate: number;
}

/**
 * Writes at `rate` a second for `seconds`, open loop: write k is sent at its moment whatever
 * the earlier ones are doing (over up to 50 connections, queued in the agent beyond), half
 * creates and half merge updates of a product drawn from `ids`.
 */
export async function pacedWrites(
  base: string,
  ids: readonly number[],
  rate: number,
  seconds: number,
): Promise<PacedRun> {
  const total = Math.round(rate * seconds);
  const written: string[] = [];
  const pending: Promise<void>[] = [];
  let errors = 0;
  const write = async (k: number) => {
    const update = k % 2 === 1;
    const id = ids[Math.floor(Math.random() * ids.length)] as number;
    try {
      const { status, json } = update
        ? await send(`${base}/product/${id}/`, 'PUT', { price: k % 100, stock: k })
        : await send(`${base}/product/`, 'POST', { name: `paced ${k}`, price: k % 100 });
      const record = json as { id: number; updatedAt: string };
      if (status >= 200 && status < 300) written.push(`${record.id}:${Date.parse(record.updatedAt)}`);
      else errors += 1;
    } catch {
      errors += 1;
    }
  };
  const started = performance.now();
  let next = 0;
  while (next < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
    for (; next < due; next++) pending.push(write(next));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  return { written, errors, rate: (total * 1000) / (performance.now() - started) };
}
