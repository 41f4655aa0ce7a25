/**
 * The README's curl examples, run as written by the real curl against a fresh server of each
 * store (only the address changed to the test's port): a newcomer's first minutes must work,
 * and this keeps the text and the service in step. (A `[` in a URL, say, needs curl's `-g`.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { useApp } from './helpers/app.js';
import { STORE_KINDS } from './helpers/stores.js';

const run = promisify(execFile);

/** The `curl` command lines of the first `sh` block under the README heading `heading`. */
function curlLines(heading: string): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf(`# ${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.startsWith('curl '));
}

/** Runs a command line with the shell, against `origin`, and answers curl's exit code and the status. */
async function curl(line: string, origin: string): Promise<{ status: number; output: string }> {
  const command = `${line.replaceAll('localhost:3000', origin)} -s -o /dev/null -w '%{http_code}'`;
  const { stdout } = await run('sh', ['-c', command]);
  return { status: Number(stdout), output: stdout };
}

for (const kind of STORE_KINDS) {
  describe(`the README's curl examples (${kind.name})`, () => {
    const ctx = useApp(kind);
    let origin = '';
    before(async () => {
      origin = (await ctx.app.listen({ host: '127.0.0.1', port: 0 })).replace('http://', '');
    });

    it('the walk-through succeeds step by step on a fresh database, the override steps included', async () => {
      const lines = curlLines('A walk through with curl');
      assert.ok(lines.length >= 8, `found ${lines.length} curl commands`);
      assert.ok(lines.some((line) => line.includes('HTTP-X-HTTP-METHOD')));
      for (const line of lines) {
        const { status } = await curl(line, origin);
        assert.ok(status >= 200 && status < 300, `${line}\n  answered ${status}`);
      }
      // The last steps tunnelled a PUT and a DELETE: the product is gone, as the README says.
      const last = /localhost:3000(\S+)/.exec(lines[lines.length - 1] ?? '')?.[1] ?? '';
      assert.equal((await ctx.app.inject({ url: last })).statusCode, 404);
    });

    it('the shop walk-through places an order and reads it back with expand', async () => {
      const db = await kind.create();
      const shop = await buildApp({
        config: defaultConfig({ databaseUrl: db.url, schemas: 'schemas/store', maxEventLoopDelay: 0 }),
        logStream: false,
      });
      try {
        const at = (await shop.listen({ host: '127.0.0.1', port: 0 })).replace('http://', '');
        const lines = curlLines('A shop: orders that name users and products');
        assert.ok(lines.length >= 5, `found ${lines.length} curl commands`);
        for (const line of lines) {
          const { status } = await curl(line, at);
          assert.ok(status >= 200 && status < 300, `${line}\n  answered ${status}`);
        }
        const order = JSON.parse((await shop.inject({ url: '/order/1/?expand=userId,items.productId' })).body);
        assert.equal(order.expand.userId.name, 'Grace Hopper');
        assert.deepEqual(
          order.expand['items.productId'].map((p: { name: string }) => p.name),
          ['Teapot', 'Cup'],
        );
        assert.equal((await shop.inject({ method: 'DELETE', url: '/user/1/' })).statusCode, 409);
      } finally {
        await shop.close();
        await db.drop();
      }
    });

    it('the list examples answer 200 as written', async () => {
      const lines = curlLines('Collections: pages, order, filters');
      assert.ok(lines.length >= 3, `found ${lines.length} curl commands`);
      for (const line of lines) {
        const { status } = await curl(line, origin);
        assert.equal(status, 200, line);
      }
    });
  });
}
