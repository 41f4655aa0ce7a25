/**
 * How many of the README's and docs/api.md's example requests a validating proxy refuses
 * although restock takes them: Stoplight Prism (`prism proxy --errors`, fetched by npx) in
 * front of a real server, fed the server's own /openapi.json. A measure, not a test: it
 * prints each refusal and the count (the aim is 0), and exits 1 when there is any.
 *
 *   node --import tsx scripts/prism-check.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Example {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const KEY = 'change-me-to-a-long-random-key';
const ADMIN = { authorization: `Bearer ${KEY}` };

/** The README's walk-through and docs/api.md's examples, on users and products. */
const WALK_THROUGH: Example[] = [
  { method: 'POST', path: '/user/', headers: JSON_TYPE, body: { name: 'Ada Lovelace', email: 'ada@example.com' } },
  { path: '/users/' },
  { path: '/user/1/' },
  { method: 'HEAD', path: '/user/1/' },
  { method: 'PUT', path: '/user/1/', headers: JSON_TYPE, body: { name: 'Ada King' } },
  { method: 'DELETE', path: '/user/1/' },
  { method: 'POST', path: '/product/', headers: JSON_TYPE, body: { name: 'Teapot', price: 19.5 } },
  { method: 'POST', path: '/product/1/', headers: { 'HTTP-X-HTTP-METHOD': 'PUT', ...JSON_TYPE }, body: { price: 17 } },
  { method: 'POST', path: '/product/1/', headers: { 'HTTP-X-HTTP-METHOD': 'DELETE' } },
  { method: 'POST', path: '/products/', headers: JSON_TYPE, body: [{ name: 'Cup', price: 4 }, { name: 'Saucer' }] },
  { path: '/products/?price[gte]=10&sort=-price&limit=20' },
  { path: '/users/?q=lovelace&fields=name,email' },
  { path: '/products/?tags[contains]=tea', headers: { prefer: 'count=exact' } },
  { path: '/users/events/', headers: { 'last-event-id': '0' } },
  { path: '/users/events/' },
];

/** The README's shop: a bulk create with a key, a sign-up, a sign-in, an order, a list. */
const SHOP: Example[] = [
  {
    method: 'POST',
    path: '/products/',
    headers: { ...ADMIN, ...JSON_TYPE },
    body: [
      { name: 'Teapot', sku: 'TEA-1', price: 19.5 },
      { name: 'Cup', sku: 'CUP-1', price: 4 },
    ],
  },
  {
    method: 'POST',
    path: '/user/',
    headers: JSON_TYPE,
    body: { name: 'Grace Hopper', email: 'grace@example.com', password: 'correct horse battery' },
  },
  {
    method: 'POST',
    path: '/users/auth/',
    headers: JSON_TYPE,
    body: { email: 'grace@example.com', password: 'correct horse battery' },
  },
  { path: '/orders/?expand=items.productId', headers: ADMIN },
  { method: 'DELETE', path: '/product/1/', headers: ADMIN },
];

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `command`, resolving once its output says `ready`. */
function start(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  // A group of its own: npx starts Prism as a child, and both must stop at the end.
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    const seen: string[] = [];
    const read = (chunk: Buffer) => {
      seen.push(chunk.toString());
      if (ready.test(seen.join(''))) resolve(child);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}):\n${seen.join('')}`)));
  });
}

async function send(origin: string, { method = 'GET', path, headers, body }: Example) {
  // A feed never ends: its status and headers are the answer (fetch resolves on them), if
  // they come at all: a proxy that reads a whole answer before it passes it on holds them.
  const feed = path.includes('/events/');
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(feed ? 5_000 : 20_000),
  }).catch((error: Error) => {
    if (error.name !== 'TimeoutError') throw error;
    return undefined;
  });
  if (!response) return { status: 0, text: 'no answer within 5 s' };
  const text = feed || method === 'HEAD' ? '' : await response.text();
  if (feed) await response.body?.cancel();
  return { status: response.status, text };
}

/** Requests Prism passed on but never answered (a change feed, which it reads to its end). */
const unanswered: string[] = [];

/** Runs `examples` through Prism in front of a server started with `env`; the refusals restock would not make. */
async function measure(name: string, env: NodeJS.ProcessEnv, examples: Example[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'restock-prism-'));
  const [port, proxyPort] = [await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  try {
    const serverEnv = { PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'db')}`, ...env };
    children.push(await start(process.execPath, ['--import', 'tsx', 'src/server.ts'], serverEnv, /listening/i));
    const origin = `http://127.0.0.1:${port}`;
    writeFileSync(join(dir, 'openapi.json'), await (await fetch(`${origin}/openapi.json`)).text());
    const prism = ['-y', '@stoplight/prism-cli@5', 'proxy', '--errors', '-p', String(proxyPort)];
    children.push(await start('npx', [...prism, join(dir, 'openapi.json'), origin], {}, /Prism is listening/));
    const refused: string[] = [];
    for (const example of examples) {
      const through = await send(`http://127.0.0.1:${proxyPort}`, example);
      if (through.status === 0) unanswered.push(`${name}: ${example.method ?? 'GET'} ${example.path}: ${through.text}`);
      if (through.status === 0 || through.status < 400) continue;
      // Refused, by Prism or by restock behind it (a HEAD's refusal has no body to tell): would restock take it?
      const direct = await send(origin, example);
      if (direct.status < 400) {
        refused.push(`${name}: ${example.method ?? 'GET'} ${example.path} → Prism ${through.status} ${through.text}`);
      }
    }
    return refused;
  } finally {
    for (const child of children) if (child.pid) process.kill(-child.pid);
    rmSync(dir, { recursive: true, force: true });
  }
}

const refused = [
  ...(await measure('users and products', {}, WALK_THROUGH)),
  ...(await measure('the shop', { SCHEMAS: './schemas/shop', API_KEYS: `admin:write:${KEY}` }, SHOP)),
];
for (const line of [...refused, ...unanswered.map((line) => `not refused, but unanswered: ${line}`)]) {
  console.log(line);
}
console.log(`${refused.length} of ${WALK_THROUGH.length + SHOP.length} requests refused by Prism that restock takes`);
process.exitCode = refused.length > 0 ? 1 : 0;
