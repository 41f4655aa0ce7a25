/**
 * The documents' curl examples, run as written by the real curl against a real server of
 * each store (only the address changed to the test's port): a newcomer's first minutes must
 * work, and this keeps the text and the service in step. The README's walk-throughs run in
 * the README's order on one database, each after the one before it, as a reader follows
 * them. test/readme-links.test.ts checks the documents' links, and that a `[` in a URL has
 * curl's `-g`.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { loadConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { useApp, useDatabase } from './helpers/app.js';
import { STORE_KINDS } from './helpers/stores.js';

const run = promisify(execFile);

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const read = (document: string) => readFileSync(join(ROOT, document), 'utf8');

/** The `curl` command lines of the first `sh` block under the heading `heading` of `document`. */
function curlLines(document: string, heading: string): string[] {
  const text = read(document);
  const at = text.indexOf(`# ${heading}\n`);
  assert.ok(at >= 0, `${document} has a heading "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at))?.[1] ?? '';
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.startsWith('curl '));
}

/** Every `sh` block under the heading `heading` of `document`, up to the next heading. */
function shBlocks(document: string, heading: string): string[] {
  const text = read(document);
  const at = text.indexOf(`# ${heading}\n`);
  assert.ok(at >= 0, `${document} has a heading "${heading}"`);
  // Headings here are ## and ###; a line of a script starting with "# " is a comment.
  const section = text.slice(at).split(/\n#{2,3} /)[0] ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** The first `js` block under the heading `heading` of the README. */
function jsBlock(heading: string): string {
  const text = read('README.md');
  return /```js\n([\s\S]*?)```/.exec(text.slice(text.indexOf(`# ${heading}\n`)))?.[1] ?? '';
}

/**
 * Runs `command` until its output matches `pattern` (a feed's follower never ends), then
 * stops it; resolves with all it printed and the match's groups.
 */
async function printedUntil(command: string, args: string[], pattern: RegExp): Promise<[string, ...string[]]> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  try {
    return await new Promise<[string, ...string[]]>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = pattern.exec(output);
        if (match) resolve([output, ...match.slice(1)]);
      });
      child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output}${errors}`)));
    });
  } finally {
    child.kill();
  }
}

/** Runs a command line with the shell, against `origin`, and answers curl's exit code and the status. */
async function curl(line: string, origin: string): Promise<{ status: number; output: string }> {
  const command = `${line.replaceAll('localhost:3000', origin)} -s -o /dev/null -w '%{http_code}'`;
  const { stdout } = await run('sh', ['-c', command]);
  return { status: Number(stdout), output: stdout };
}

/** The variables a README line such as `SCHEMAS=./schemas/shop API_KEYS=… npm start` sets before its command. */
function variablesOf(line: string): Record<string, string> {
  const prefix = /^(.*)\bnpm start$/m.exec(line)?.[1] ?? '';
  return Object.fromEntries([...prefix.matchAll(/([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value]));
}

/**
 * Serves `database` with the settings `variables` give, as `npm start` would read them from
 * the environment, on a port of its own; runs `walk` against its address, then stops it.
 */
async function serving(
  database: string,
  variables: Record<string, string>,
  walk: (at: string) => Promise<void>,
  logStream: { write(line: string): void } | false = false,
) {
  const env = { ...variables, DATABASE_URL: database, MAX_EVENT_LOOP_DELAY: '0' };
  const app = await buildApp({ config: loadConfig([], env).config, logStream });
  try {
    await walk((await app.listen({ host: '127.0.0.1', port: 0 })).replace('http://', ''));
  } finally {
    await app.close();
  }
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** Resolves once something accepts connections on `port` (a process started just before). */
async function listening(port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const socket = connect(port, '127.0.0.1');
    const [outcome] = await Promise.race([once(socket, 'connect').then(() => ['up']), once(socket, 'error')]);
    socket.destroy();
    if (outcome === 'up') return;
    if (attempt >= 500) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A new shopper signs up, signs in and places an order of the first product; resolves with its id. */
async function placeOrder(base: string): Promise<number> {
  const json = { 'content-type': 'application/json' };
  const shopper = { name: 'Ada', email: `ada-${Date.now()}@example.com`, password: 'a long enough password' };
  await fetch(`${base}/user/`, { method: 'POST', headers: json, body: JSON.stringify(shopper) });
  const credentials = JSON.stringify({ email: shopper.email, password: shopper.password });
  const signIn = await fetch(`${base}/users/auth/`, { method: 'POST', headers: json, body: credentials });
  const { token } = (await signIn.json()) as { token: string };
  const [product] = (await (await fetch(`${base}/products/?limit=1`)).json()) as [{ id: number }];
  const placed = await fetch(`${base}/order/`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ items: [{ productId: product.id, quantity: 1 }], status: 'placed' }),
  });
  assert.equal(placed.status, 201, await placed.clone().text());
  return ((await placed.json()) as { id: number }).id;
}

for (const kind of STORE_KINDS) {
  // A reader follows the README from the top, on one database: each walk-through starts
  // where the one before it left that database, never on a fresh one.
  describe(`the README's walk-throughs, in order on one database (${kind.name})`, () => {
    const ctx = useDatabase(kind);

    it('the walk-through with curl succeeds step by step, the override steps included', async () => {
      const lines = curlLines('README.md', 'A walk through with curl');
      assert.ok(lines.length >= 8, `found ${lines.length} curl commands`);
      assert.ok(lines.some((line) => line.includes('HTTP-X-HTTP-METHOD')));
      await serving(ctx.db.url, {}, async (at) => {
        for (const line of lines) {
          const { status } = await curl(line, at);
          assert.ok(status >= 200 && status < 300, `${line}\n  answered ${status}`);
        }
        // The last steps tunnelled a PUT and a DELETE: the product is gone, as the walk-through says.
        const last = /localhost:3000(\S+)/.exec(lines[lines.length - 1] ?? '')?.[1] ?? '';
        assert.equal((await fetch(`http://${at}${last}`)).status, 404);
      });
    });

    it('then the shop, served on that same database, signs up, signs in, orders and lists only its own', async () => {
      const [serve = '', walk = ''] = shBlocks(
        'README.md',
        'A shop with accounts: each shopper sees only their own orders',
      );
      const variables = variablesOf(serve);
      assert.equal(variables.SCHEMAS, './schemas/shop', serve);
      const admin = { authorization: `Bearer ${(variables.API_KEYS ?? '').split(':')[2]}` };
      await serving(ctx.db.url, variables, async (at) => {
        // The block runs as one script, as a reader pastes it: its variables carry from line to line.
        const script = `set -e\n${walk.replaceAll('localhost:3000', at).replaceAll('curl ', "curl -sSf -w '\\n' ")}`;
        const { stdout } = await run('sh', ['-c', script]);
        type Listed = { expand: { 'items.productId': { name: string }[] } };
        const mine = JSON.parse(stdout.trim().split('\n').pop() ?? '[]') as Listed[];
        assert.equal(mine.length, 1, stdout);
        const [order] = mine as [Listed];
        assert.deepEqual(
          order.expand['items.productId'].map((p) => p.name),
          ['Teapot', 'Cup'],
        );
        assert.equal(await (await fetch(`http://${at}/orders/`)).text(), '[]', 'no one else sees it');
        const [teapot] = (await (await fetch(`http://${at}/products/?sku=TEA-1`)).json()) as [{ id: number }];
        const removal = await fetch(`http://${at}/product/${teapot.id}/`, { method: 'DELETE', headers: admin });
        assert.equal(removal.status, 409, 'an ordered product stays');
      });
    });

    it("then a product's picture: uploaded with the staff key, downloaded whole and as a thumbnail", async () => {
      const [serve = ''] = shBlocks('README.md', 'A shop with accounts: each shopper sees only their own orders');
      const [walk = ''] = shBlocks('README.md', 'A picture for a product');
      const variables = variablesOf(serve);
      const key = (variables.API_KEYS ?? '').split(':')[2];
      const dir = mkdtempSync(join(tmpdir(), 'restock-readme-picture-'));
      const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#c44' } })
        .png()
        .toBuffer();
      writeFileSync(join(dir, 'mug.png'), png);
      try {
        await serving(ctx.db.url, { ...variables, FILES_DIR: join(dir, 'files') }, async (at) => {
          // As a reader pastes it after the shop's block: $ADMIN is set.
          const script = `set -e\nADMIN='Authorization: Bearer ${key}'\n${walk
            .replaceAll('localhost:3000', at)
            .replaceAll('curl ', 'curl -sSf ')}`;
          await run('sh', ['-c', script], { cwd: dir });
          assert.deepEqual(readFileSync(join(dir, 'mug-copy.png')), png);
          assert.deepEqual(
            await sharp(join(dir, 'mug-small.png'))
              .metadata()
              .then(({ width, height }) => [width, height]),
            [100, 100],
          );
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('then a reset by mail: the link the log shows sets a new password, which signs in', async () => {
      const [serve = '', walk = ''] = shBlocks('README.md', 'Forgot the password? A reset by mail');
      const variables = variablesOf(serve);
      assert.equal(variables.MAIL_LOG_LINKS, 'true', serve);
      const [ask, confirm] = [walk.slice(0, walk.indexOf('# 2.')), walk.slice(walk.indexOf('# 2.'))];
      // The link reaches the log after the answer, when the outbox's sender gets to the mail.
      let logged = '';
      let heard: (token: string) => void = () => {};
      const linked = new Promise<string>((resolve) => {
        heard = resolve;
      });
      const log = {
        write(line: string) {
          logged += line;
          const token = /"link":"[^"]*[?&]token=([\w-]+)"/.exec(line)?.[1];
          if (token) heard(token);
        },
      };
      const script = (text: string, at: string) =>
        `set -e\n${text.replaceAll('localhost:3000', at).replaceAll('curl ', "curl -sSf -w '\\n%{http_code}\\n' ")}`;
      await serving(
        ctx.db.url,
        variables,
        async (at) => {
          const asked = await run('sh', ['-c', script(ask, at)]);
          assert.match(asked.stdout, /^202$/m, asked.stdout);
          const token = await linked;
          assert.match(logged, /"link":"http:\/\/127\.0\.0\.1:\d+\/console\/\?action=reset&collection=users&token=/);
          const pasted = confirm.replace("RESET_TOKEN='paste the token here'", `RESET_TOKEN='${token}'`);
          const { stdout } = await run('sh', ['-c', script(pasted, at)]);
          const [reset, signedIn] = stdout
            .trim()
            .split('\n')
            .filter((line) => /^\d{3}$/.test(line));
          assert.equal(reset, '204', stdout);
          assert.equal(signedIn, '200', stdout);
          assert.match(stdout, /"token":"/);
        },
        log,
      );
    });

    it("then the change feed's curl prints the catalogue's changes as written, as its EventSource does in Node.js", async () => {
      const [serve = ''] = shBlocks('README.md', 'A shop with accounts: each shopper sees only their own orders');
      const [line = '', ...others] = curlLines('README.md', 'Following changes');
      assert.equal(others.length, 0);
      assert.match(line, /^curl -N '\S+\/events\/\?since=0'/);
      const example = jsBlock('Following changes');
      assert.match(example, /new EventSource\('http:\/\/127\.0\.0\.1:3000\//);
      await serving(ctx.db.url, variablesOf(serve), async (at) => {
        // The feed never ends: each runs until it has printed a record, then is stopped.
        const curled = await printedUntil(
          'sh',
          ['-c', `exec ${line.replaceAll('localhost:3000', at)}`],
          /^data: (.+)$/m,
        );
        assert.match(curled[0], /^retry: \d+\n\nid: 1\nevent: created\ndata: /);
        // The first product the README made: the walk-through's, on this database.
        assert.equal(JSON.parse(curled[1] ?? '').name, 'Teapot');
        const staff = `${line.replace(/\s+#.*$/, '').replace('products', 'users')} -H "Authorization: Bearer ${variablesOf(serve).API_KEYS?.split(':')[2]}"`;
        const users = await printedUntil(
          'sh',
          ['-c', `exec ${staff.replaceAll('localhost:3000', at)}`],
          /^data: (.+)$/m,
        );
        // The walk-through's first user, whom the shop's rules hide from anyone without a key.
        assert.equal(JSON.parse(users[1] ?? '').name, 'Ada Lovelace', 'the staff key follows every user');
        const script = example.replaceAll('127.0.0.1:3000', at);
        const args = ['--experimental-eventsource', '--input-type=module', '-e', script];
        const logged = await printedUntil(process.execPath, args, /^\{.*$/m);
        assert.match(logged[0], /name: 'Teapot'/);
      });
    });

    it("then a webhook: the README's receiver verifies and prints each placed order", async () => {
      const [serve = '', make = ''] = shBlocks('README.md', 'Telling other services: webhooks');
      const [shop = ''] = shBlocks('README.md', 'A shop with accounts: each shopper sees only their own orders');
      const variables = variablesOf(serve);
      assert.equal(variables.WEBHOOKS_ALLOW_PRIVATE, 'true', serve);
      const key = (variables.API_KEYS ?? '').split(':')[2];
      assert.equal(key, (variablesOf(shop).API_KEYS ?? '').split(':')[2], 'the same staff key as the shop');
      const port = await freePort();
      const receiver = jsBlock('Telling other services: webhooks').replace('listen(4000)', `listen(${port})`);
      await serving(ctx.db.url, variables, async (at) => {
        const script = `set -e\nADMIN='Authorization: Bearer ${key}'\n${make
          .replaceAll('localhost:3000', at)
          .replace('127.0.0.1:4000', `127.0.0.1:${port}`)
          .replaceAll('curl ', 'curl -sSf ')}`;
        const { stdout } = await run('sh', ['-c', script]);
        const { secret } = JSON.parse(stdout) as { secret: string };
        assert.match(secret, /^whsec_/);
        // `timeout`: a receiver that never prints ends anyway, and the test with it.
        const printed = printedUntil(
          'timeout',
          ['60', 'env', `WEBHOOK_SECRET=${secret}`, process.execPath, '--input-type=module', '-e', receiver],
          /orders\.created (\d+) placed/,
        );
        await listening(port);
        const order = await placeOrder(`http://${at}`);
        const [, id] = await printed;
        assert.equal(Number(id), order);
      });
    });

    it("then JavaScript's fetch example, against that shop with its staff key", async () => {
      const [serve = ''] = shBlocks('README.md', 'A shop with accounts: each shopper sees only their own orders');
      const text = read('README.md');
      const section = text.slice(text.indexOf('# From JavaScript: fetch, or the typed client\n'));
      const example = /```js\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
      assert.match(example, /HTTP-X-HTTP-METHOD/);
      await serving(ctx.db.url, variablesOf(serve), async (at) => {
        const script = example.replaceAll('127.0.0.1:3000', at);
        await run(process.execPath, ['--input-type=module', '-e', script]);
        const [kettle] = (await (await fetch(`http://${at}/products/?sku=KET-1`)).json()) as [{ price: number }];
        assert.equal(kettle.price, 32, 'created, then changed through the tunnelled PUT');
      });
    });
  });

  describe(`the curl examples of docs/api.md (${kind.name})`, () => {
    const ctx = useApp(kind);
    let origin = '';
    before(async () => {
      origin = (await ctx.app.listen({ host: '127.0.0.1', port: 0 })).replace('http://', '');
    });

    it('the list examples answer 200 as written', async () => {
      const lines = curlLines('docs/api.md', 'Pages, order and filters');
      assert.ok(lines.length >= 3, `found ${lines.length} curl commands`);
      for (const line of lines) {
        const { status } = await curl(line, origin);
        assert.equal(status, 200, line);
      }
    });
  });
}
