/**
 * The mail outbox draining beside reads: `node --import tsx bench/mail-drain.ts [--mails N]
 * [--seconds S] [--readers N] [--connections N] [--smtp-ms MS] [--stores sqlite,postgres]`.
 * On each store, a real SMTP server in this process (smtp-server: it takes each mail as it
 * comes, or answers each DATA after `--smtp-ms`, as a real relay takes its time) and restock
 * (dist/, production flags, SMTP_URL at that server) over an account collection that
 * verifies its addresses:
 *
 * 1. The SMTP server's pace: N mails sent to it straight from this process, through
 *    nodemailer's pool with as many connections as restock's sender uses (`--connections`,
 *    given to restock as MAIL_CONNECTIONS; default 5, as restock's).
 * 2. GET one from 8 connections, alone, for S seconds: p50 and p99.
 * 3. One bulk create of N accounts (its N verification mails queued in its transaction),
 *    and GET one from 8 connections (`--readers`; 0: the drain alone) until the SMTP server
 *    has taken all N: how long the outbox took to drain, mails per second, the server's CPU
 *    time per mail (the reads' included), and GET one's p50 and p99 meanwhile.
 *
 * The server is not pinned to a core. The load comes from this process (keep-alive
 * connections, one request at a time each).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { verifyShopSchemas } from '../test/helpers/verify-shop.js';
import { type CountingSmtp, countingSmtp } from './counting-smtp.js';
import { percentile } from './median.js';
import { type BenchServer, startServer } from './servers.js';

const { values: args } = parseArgs({
  options: {
    mails: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '5' },
    readers: { type: 'string', default: '8' },
    connections: { type: 'string', default: '5' },
    'smtp-ms': { type: 'string', default: '0' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const MAILS = Number(args.mails);
const SECONDS = Number(args.seconds);
/** Connections reading (GET one) while the outbox drains; 0 measures the drain alone. */
const READERS = Number(args.readers);
/** restock's sender's connections to the SMTP server (MAIL_CONNECTIONS), and the pace measurement's. */
const CONNECTIONS = Number(args.connections);
/** How long the SMTP server takes to answer each mail's DATA (a real relay's pace), in ms. */
const SMTP_MS = Number(args['smtp-ms']);
const KEY = 'wk_0123456789abcdefWRITE';
const ENV = { API_KEYS: `bench:write:${KEY}`, SCHEMAS: verifyShopSchemas() };

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** GET `url` with the key: its status and how long it took (ms). */
function get(url: string): Promise<{ status: number; ms: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    request(url, { agent, headers: { authorization: `Bearer ${KEY}` } }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** GETs from `connections` loops until `done` resolves. */
async function reads(connections: number, done: Promise<unknown>, url: () => string) {
  let over = false;
  void done.then(() => {
    over = true;
  });
  const answers: { status: number; ms: number }[] = [];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (!over) answers.push(await get(url()));
    }),
  );
  return answers;
}

function summary(answers: { status: number; ms: number }[]) {
  const ms = answers.map((answer) => answer.ms);
  return {
    requests: answers.length,
    p50: percentile(ms, 50).toFixed(2),
    p99: percentile(ms, 99).toFixed(2),
    errors: answers.filter((answer) => answer.status !== 200).length,
  };
}

/** Mails per second the SMTP server takes from a pool of {@link CONNECTIONS} connections in this process. */
async function smtpPace(smtp: CountingSmtp): Promise<number> {
  const transport = nodemailer.createTransport({ url: smtp.url, pool: true, maxConnections: CONNECTIONS });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: MAILS }, (_, i) =>
      transport.sendMail({ from: 'bench@example.com', to: `to-${i}@example.com`, subject: 'pace', text: 'pace' }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  return MAILS / seconds;
}

async function measure(server: BenchServer, smtp: CountingSmtp) {
  // Records to read: the first accounts (their mails drained before the run proper).
  const warmed = smtp.expect(100);
  const warm = await post(
    server,
    [...Array(100).keys()].map((i) => ({ name: `Warm ${i}`, email: `warm-${i}@example.com` })),
  );
  await warmed;
  const ids = (JSON.parse(warm) as { id: number }[]).map((record) => record.id);
  const user = () => `${server.url}/users/${ids[Math.floor(Math.random() * ids.length)]}/`;
  const alone = summary(await reads(8, new Promise((resolve) => setTimeout(resolve, SECONDS * 1000)), user));
  const drained = smtp.expect(MAILS);
  const cpuBefore = server.cpuSeconds();
  const started = performance.now();
  const beside = reads(READERS, drained, user);
  await post(
    server,
    [...Array(MAILS).keys()].map((i) => ({ name: `User ${i}`, email: `user-${i}@example.com` })),
  );
  await drained;
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = ((server.cpuSeconds() - cpuBefore) * 1000) / MAILS;
  return {
    'GET one alone': alone,
    [`draining ${MAILS} mails`]: {
      seconds: seconds.toFixed(2),
      perSecond: Math.round(MAILS / seconds),
      // The server's CPU time per mail, reads while draining included.
      serverCpuMsEach: cpuMs.toFixed(2),
    },
    'GET one while draining': summary(await beside),
  };
}

async function post(server: BenchServer, body: unknown): Promise<string> {
  const response = await fetch(`${server.url}/users/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`bulk create answered ${response.status}: ${text}`);
  return text;
}

async function onStore(store: string) {
  const smtp = await countingSmtp(SMTP_MS);
  const pace = Math.round(await smtpPace(smtp));
  const dir = mkdtempSync(join(tmpdir(), 'restock-mail-'));
  const admin = store === 'postgres' ? new pg.Client({ connectionString: args['postgres-url'] }) : undefined;
  const name = `restock_bench_mail_${process.pid}`;
  try {
    let env: Record<string, string> = { ...ENV, SMTP_URL: smtp.url, MAIL_CONNECTIONS: String(CONNECTIONS) };
    if (admin) {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(args['postgres-url'] as string);
      url.pathname = `/${name}`;
      env = { ...env, DATABASE_URL: url.href };
    }
    const server = await startServer({ target: 'restock', database: join(dir, 'bench.db'), pin: [], env });
    try {
      return { 'SMTP server alone': { perSecond: pace }, ...(await measure(server, smtp)) };
    } finally {
      await server.stop();
    }
  } finally {
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
    rmSync(dir, { recursive: true, force: true });
    await smtp.close();
  }
}

execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
for (const store of (args.stores as string).split(',')) {
  process.stderr.write(`${store}: ${MAILS} mails…\n`);
  for (const [what, figures] of Object.entries(await onStore(store))) {
    process.stdout.write(`${store.padEnd(8)} ${what.padEnd(28)} ${JSON.stringify(figures)}\n`);
  }
}
agent.destroy();
