/**
 * `node --import tsx bench/change-feed.ts`: the change feed under load, on SQLite and on
 * PostgreSQL (a database made and dropped here).
 *
 * - Fan-out: `--subscribers` (100) follow the products' feed while creates arrive at
 *   `--rate` (1,000 a second) for `--seconds` (5); for every event each subscriber gets,
 *   the time from the create's acknowledgement (its commit) to the event's arrival. Prints
 *   the rate reached and the p50 and p99 of that delay.
 * - Idle: `--idle` (1,000) subscribers on a quiet feed; prints the server's resident memory.
 */

import { readFileSync } from 'node:fs';
import { Agent, get, type IncomingMessage, request } from 'node:http';
import { parseArgs } from 'node:util';
import { onBothStores } from './both-stores.js';
import { corePins, startServer } from './servers.js';

const { values: flags } = parseArgs({
  options: {
    subscribers: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    idle: { type: 'string' },
  },
});
const SUBSCRIBERS = Number(flags.subscribers ?? 100);
const RATE = Number(flags.rate ?? 1000);
const SECONDS = Number(flags.seconds ?? 5);
const IDLE = Number(flags.idle ?? 1000);
const CONNECTIONS = 50;

/** Opens a feed on a connection of its own; `onEvent` gets each event's record id. */
function follow(url: string, onEvent: (id: number) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/products/events/`, { agent: false }, (response: IncomingMessage) => {
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
          if (data) onEvent((JSON.parse(data) as { id: number }).id);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      });
      resolve(() => req.destroy());
    });
    req.on('error', reject);
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function create(url: string, n: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ name: `feed ${n}`, price: n % 100 });
    const req = request(
      `${url}/product/`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          response.statusCode === 201
            ? resolve((JSON.parse(text) as { id: number }).id)
            : reject(new Error(`POST answered ${response.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)?.[1];
  return Number(line) / 1024;
}

async function measure(store: string, env: Record<string, string>, database: string): Promise<void> {
  const server = await startServer({
    target: 'restock',
    database,
    pin: corePins().server,
    env: { RATE_LIMIT_MAX: '0', MAX_EVENT_LOOP_DELAY: '0', ...env },
  });
  try {
    const acked = new Map<number, number>();
    const delays: number[] = [];
    const stops = await Promise.all(
      Array.from({ length: SUBSCRIBERS }, () =>
        follow(server.url, (id) => {
          const at = acked.get(id);
          // An event can arrive before its create's answer: its delay is then none.
          delays.push(at === undefined ? 0 : performance.now() - at);
        }),
      ),
    );
    const total = RATE * SECONDS;
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        for (let n = next++; n < total; n = next++) {
          // Paced: create n is not sent before its moment at the target rate.
          const due = started + (n * 1000) / RATE;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const id = await create(server.url, n);
          acked.set(id, performance.now());
        }
      }),
    );
    const reached = (total * 1000) / (performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const stop of stops) stop();
    delays.sort((a, b) => a - b);
    process.stdout.write(
      `${store.padEnd(10)} fan-out: ${SUBSCRIBERS} subscribers, ${reached.toFixed(0)} creates/s reached ` +
        `(target ${RATE}); ${delays.length} events of ${total * SUBSCRIBERS}; commit to delivery ` +
        `p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms\n`,
    );

    const before = rssMb(server.pid);
    const idle = await Promise.all(Array.from({ length: IDLE }, () => follow(server.url, () => {})));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    process.stdout.write(
      `${store.padEnd(10)} idle: ${IDLE} subscribers, server RSS ${before.toFixed(0)} MB before, ` +
        `${rssMb(server.pid).toFixed(0)} MB with them\n`,
    );
    for (const stop of idle) stop();
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  try {
    await onBothStores('feed', measure);
  } finally {
    agent.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`change-feed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
