/**
 * The package as people install it (process): `npm pack` builds and packs it, with the client
 * it re-exports bundled inside (`restock-client`, bundleDependencies), and the tarball alone
 * installs into an empty folder, asking the registry for nothing that is not published, and
 * printing no warning (on Node 20 with the app settings docs/operations.md gives). There `restock` serves the API,
 * the console and the docs, its bin answers and writes the client's types,
 * `restock-server/client` imports and type-checks under every `moduleResolution`, and the
 * README's links resolve. Slow (a real install from the npm registry or its cache, which
 * compiles the SQLite driver on Node 20), so it is one test.
 *
 * It packs a copy of the clone, dist/ included with its times: packing builds dist/ when a
 * source is newer, and the copy's, not the one the other test files, running beside this
 * one, start servers from. Where the machine has ccache, the install compiles through it,
 * so that a second run does not compile SQLite again (CI installs it).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { consumerDiagnostics, RESOLUTIONS } from './helpers/consumer-types.js';
import { npmWarnings } from './helpers/npm-warnings.js';
import { startServer } from './helpers/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** What the copy leaves out: installed and local files. */
const NOT_COPIED = new Set(['node_modules', 'data', '.git', 'test-artifacts']);

function hasCcache(): boolean {
  try {
    execFileSync('ccache', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs npm with the Node.js running this test first on the PATH, as CI's Node lines need. */
function npm(args: string[], cwd: string) {
  const path = `${join(process.execPath, '..')}:${process.env.PATH}`;
  const compilers = hasCcache() ? { CC: 'ccache gcc', CXX: 'ccache g++' } : {};
  return run('npm', args, { cwd, env: { ...process.env, ...compilers, PATH: path }, maxBuffer: 64 * 1024 * 1024 });
}

/** `npm pack` in `folder`, into `destination`; answers the tarball. */
async function pack(folder: string, destination: string): Promise<string> {
  const { stdout } = await npm(['pack', '--json', '--pack-destination', destination], folder);
  const [{ filename }] = JSON.parse(stdout.slice(stdout.indexOf('['))) as [{ filename: string }];
  return join(destination, filename);
}

const IMPORT_CLIENT = "import('restock-server/client').then((m) => console.log(typeof m.createClient))";

/**
 * The links of a Markdown file in the installed package that lead nowhere: every relative
 * one must name a file the package holds (addresses, `#` anchors and mail are left alone).
 */
function brokenLinks(folder: string, file: string): string[] {
  const text = readFileSync(join(folder, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
  return targets.filter((target) => {
    if (/^([a-z]+:|#)/.test(target)) return false;
    return !existsSync(join(folder, target.split('#')[0] as string));
  });
}

const NODE20 = process.versions.node.startsWith('20.');

/**
 * The app's package.json on Node 20, as docs/operations.md gives it: better-sqlite3 12's build
 * approved (later lines run no install script), and the two packages that declare Node 22
 * replaced by their previous majors, which declare 18 (npm reads overrides from the app alone).
 */
const NODE20_APP = {
  allowScripts: { 'better-sqlite3': true },
  overrides: { 'content-disposition': '^2.0.1', cookie: '^1.1.1' },
};

/** The major versions of every better-sqlite3 an install of restock into `app` holds, wherever it may be. */
function bindingsIn(app: string): string[] {
  const places = ['', 'node_modules/restock-server/', 'node_modules/restock-server/packages/sqlite-node20/'];
  return places
    .map((place) => join(app, place, 'node_modules/better-sqlite3/package.json'))
    .filter((manifest) => existsSync(manifest))
    .map((manifest) => (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version.split('.')[0] ?? '');
}

/**
 * The copy's node_modules: the clone's packages, linked one by one, but the client workspace
 * linked to the copy's own packages/client, so that the client bundled into the tarball is the
 * one its prepack builds.
 */
function linkModules(clone: string): void {
  const modules = join(clone, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name !== 'restock-client') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  symlinkSync('../packages/client', join(modules, 'restock-client'));
}

describe('the package', () => {
  it('packs, installs into an empty folder and serves there, and its bin answers --version', async () => {
    const work = mkdtempSync(join(tmpdir(), 'restock-package-'));
    const clone = join(work, 'clone');
    cpSync(ROOT, clone, {
      recursive: true,
      preserveTimestamps: true,
      filter: (path) => !NOT_COPIED.has(relative(ROOT, path)),
    });
    linkModules(clone);
    const tarball = await pack(clone, work);

    // The tarball alone, in an empty folder (on Node 20, one with the settings above).
    const app = join(work, 'app');
    mkdirSync(app);
    if (NODE20) writeFileSync(join(app, 'package.json'), JSON.stringify(NODE20_APP));
    const { stderr } = await npm(['install', '--no-audit', '--no-fund', tarball], app);
    assert.deepEqual(npmWarnings(stderr), [], stderr);
    // npm skips the other Node lines' SQLite binding: one better-sqlite3 in the tree, this line's.
    assert.deepEqual(bindingsIn(app), NODE20 ? ['12'] : ['13']);
    const installed = join(app, 'node_modules/restock-server');
    const files = readdirSync(installed, { recursive: true }).map(String);
    assert.deepEqual(
      files.filter((file) => file.endsWith('.map')),
      [],
      'no source map pointing at a src/ the package lacks',
    );
    assert.deepEqual(brokenLinks(installed, 'README.md'), []);
    const { stdout: exported } = await run(process.execPath, ['-e', IMPORT_CLIENT], { cwd: app });
    assert.equal(exported.trim(), 'function');
    const found = RESOLUTIONS.flatMap((resolution) => consumerDiagnostics(app, 'restock-server/client', resolution));
    assert.deepEqual(found, []);

    const server = await startServer({}, [], { command: join(app, 'node_modules/.bin/restock'), cwd: app });
    try {
      const health = await fetch(`${server.url}/healthz`);
      assert.equal(health.status, 200);
      const page = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } });
      assert.match(await page.text(), /<html/);
      assert.equal((await fetch(`${server.url}/console/console.js`)).status, 200);
      assert.equal((await fetch(`${server.url}/docs/`)).status, 200);
      assert.equal((await fetch(`${server.url}/openapi.json`)).status, 200);
      const created = await fetch(`${server.url}/user/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name": "first customer"}',
      });
      assert.equal(created.status, 201);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.ok(readdirSync(join(app, 'data')).includes('restock.db'), 'the database is made in the working folder');

    // The bin as npm links it (a global install links the same file into its prefix's bin;
    // a second install would only compile SQLite again).
    const { stdout } = await run(join(app, 'node_modules/.bin/restock'), ['--version'], {
      env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH}` },
    });
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.match(stdout, new RegExp(version.replaceAll('.', '\\.')));
    await run(join(app, 'node_modules/.bin/restock'), ['types', '--out', 'shop.ts'], {
      cwd: app,
      env: {
        ...process.env,
        PATH: `${join(process.execPath, '..')}:${process.env.PATH}`,
        SCHEMAS: join(installed, 'schemas/shop'),
      },
    });
    assert.match(readFileSync(join(app, 'shop.ts'), 'utf8'), /export interface Collections \{\n {2}orders: Order;/);
    rmSync(work, { recursive: true, force: true });
  });
});
