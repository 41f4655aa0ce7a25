/**
 * `restock-client` as a web application installs it (process): built from packages/client
 * into a folder of its own, packed with `npm pack`, and installed from the tarball alone into
 * an empty folder, with no warning. There it must bring no dependency and stay small, import
 * in Node.js and make calls to a live restock, type-check under every `moduleResolution`, and
 * load in Chromium as an ES module that talks to a live restock. (restock-server bundles it:
 * test/package.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { launchChromium } from './helpers/browser.js';
import { consumerDiagnostics, RESOLUTIONS } from './helpers/consumer-types.js';
import { npmWarnings } from './helpers/npm-warnings.js';
import { packClient } from './helpers/pack-client.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

const run = promisify(execFile);

/** Runs npm with the Node.js running this test first on the PATH. */
function npm(args: string[], cwd: string) {
  return run('npm', args, {
    cwd,
    env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH}` },
  });
}

/** Bytes of every file under `dir`. */
function sizeOf(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((total, entry) => total + statSync(join(entry.parentPath, entry.name)).size, 0);
}

describe('the client package', () => {
  let work: string;
  let app: string;
  let installed: string;
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'restock-client-package-'));
    const tarball = await packClient(work);
    app = join(work, 'app');
    mkdirSync(app);
    const started = performance.now();
    const { stderr } = await npm(['install', '--no-audit', '--no-fund', tarball], app);
    const seconds = (performance.now() - started) / 1000;
    assert.deepEqual(npmWarnings(stderr), [], stderr);
    installed = join(app, 'node_modules/restock-client');
    // Figures for the record, not assertions on time: the report quotes them.
    console.log(`# restock-client: installed in ${seconds.toFixed(1)} s, ${sizeOf(installed)} bytes`);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('installs alone: no dependency, under 116 KB, no source maps', () => {
    const packages = readdirSync(join(app, 'node_modules'), { recursive: true }).filter((path) =>
      String(path).endsWith('package.json'),
    );
    assert.deepEqual(packages, ['restock-client/package.json']);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.dependencies, undefined);
    // 108 KB: the account flows' ten calls (SPEC §16) took it from 98,820 bytes to 106,693, measured:
    // 3,862 of code and types, 3,280 of doc comments (tsc writes each into the .js and the .d.ts), 731 of README.
    // 112 KB: files (uploads as multipart, fileUrl, fileToken, their types) took it to 112,275, measured:
    // 5,039 of code, types and terse comments, 543 of README.
    // 116 KB: webhooks (client.webhooks: eight calls and their types) took it to 117,750, measured: 5,475
    // bytes of code, types and terse comments.
    assert.ok(sizeOf(installed) < 116 * 1024, `${sizeOf(installed)} bytes`);
    const files = readdirSync(installed, { recursive: true }).map(String);
    assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts') && files.includes('README.md'));
    assert.deepEqual(
      files.filter((file) => file.endsWith('.map') || file.endsWith('.ts') !== file.endsWith('.d.ts')),
      [],
    );
  });

  it('imports in Node.js as an ES module', async () => {
    const script = "import('restock-client').then((m) => console.log(Object.keys(m).sort().join(' ')))";
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: app });
    for (const name of ['createClient', 'ProblemError', 'CollectionClient', 'RecordList', 'etagOf']) {
      assert.ok(
        stdout
          .split(' ')
          .map((word) => word.trim())
          .includes(name),
        `${name} in ${stdout}`,
      );
    }
  });

  it('type-checks under moduleResolution node10, node16, nodenext and bundler', () => {
    const found = RESOLUTIONS.flatMap((resolution) => consumerDiagnostics(app, 'restock-client', resolution));
    assert.deepEqual(found, []);
  });

  describe('against a live restock, in Node.js and in Chromium', () => {
    const kind = STORE_KINDS[0] as (typeof STORE_KINDS)[number];
    let db: TestDatabase;
    let restock: FastifyInstance;
    let origin: string;
    let pages: Server;
    before(async () => {
      db = await kind.create();
      restock = await buildApp({
        config: defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0 }),
        logStream: false,
      });
      origin = await restock.listen({ host: '127.0.0.1', port: 0 });
      pages = servePage(installed);
      await new Promise((resolve) => pages.listen(0, '127.0.0.1', () => resolve(undefined)));
    });
    after(async () => {
      pages?.close();
      await restock?.close();
      await db?.drop();
    });

    it('makes, reads and deletes a record from Node.js, imported by its package name', async () => {
      const script = `import('restock-client').then(async ({ createClient }) => {
        const products = createClient({ baseUrl: process.argv[1] }).collection('products');
        const made = await products.create({ name: 'from node' });
        const read = await products.get(made.id);
        await products.delete(made.id); // the page test below counts the collection
        console.log(JSON.stringify({ same: read.id === made.id, name: read.name }));
      })`;
      const { stdout } = await run(process.execPath, ['-e', script, origin], { cwd: app });
      assert.deepEqual(JSON.parse(stdout), { same: true, name: 'from node' });
    });

    it('loads the installed dist/ as an ES module and makes, pages and counts records', async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(`http://127.0.0.1:${(pages.address() as AddressInfo).port}/`);
        await page.waitForFunction(() => 'exercise' in globalThis);
        const result = await page.evaluate(
          (baseUrl) => (globalThis as unknown as { exercise: (b: string) => Promise<unknown> }).exercise(baseUrl),
          origin,
        );
        assert.deepEqual(result, { made: 3, total: 3, pages: 2, names: ['a', 'b', 'c'], cursor: true });
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
      }
    });
  });
});

const PAGE = `<!doctype html><meta charset="utf-8"><title>installed client</title>
<script type="module">
  import { createClient } from './client/index.js';
  window.exercise = async (baseUrl) => {
    const products = createClient({ baseUrl }).collection('products');
    const made = await products.create([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    const listed = products.list({ sort: 'name', limit: 2, count: true });
    const seen = [];
    for await (const page of listed.pages()) seen.push(page);
    return {
      made: made.length,
      total: seen[0].total,
      pages: seen.length,
      names: seen.flatMap((page) => page.records.map((record) => record.name)),
      cursor: typeof seen[0].cursor === 'string',
    };
  };
</script>`;

/** Serves the page, and the installed package's dist/ under /client/. */
function servePage(installed: string): Server {
  return createServer((request, response) => {
    const name = /^\/client\/([a-z-]+\.js)$/.exec(request.url ?? '')?.[1];
    if (request.url === '/') response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (name) {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(join(installed, 'dist', name)));
    } else response.writeHead(404).end();
  });
}
